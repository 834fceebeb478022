"""Maintainer tools that are not part of the package (mutation testing)."""
