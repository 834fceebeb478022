"""teamwire: the Team Leader / sub-agent message protocol, its reference tools and conformance suite."""

from teamwire._version import __version__

__all__ = ["__version__"]
