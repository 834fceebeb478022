"""Importers: other systems' stored sessions turned into teamwire session bundles.

``teamwire.importers.astrion`` reads the data directory of astrion, the public
implementation of the protocol (``teamwire import astrion DIR -o OUTDIR``).
"""
