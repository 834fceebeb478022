"""The version of the specification this package implements; the single place it is written.

Writers (the router's bundles and structured messages, the importers) write ``SPEC_VERSION``
(TW-VER-001); readers accept every minor version of ``SPEC_MAJOR`` (TW-VER-003), so bundles of
spec 1.0 and 1.1 are read alike. ``teamwire --version``, ``teamwire lint --format json`` and the
SARIF report name it (TW-VER-012).
"""

SPEC_VERSION = "1.1"

SPEC_MAJOR = SPEC_VERSION.split(".", 1)[0]
"""The major number a reader of this version accepts."""
