"""Where the documentation site is published; reports link to its pages."""

SITE_URL = "https://teamwire.dev/"
"""The site's base address, as ``site_url`` in mkdocs.yml (the docs build checks they agree)."""

RULES_URL = f"{SITE_URL}rules/"
"""The rule catalog; each rule's entry is the anchor ``#<code in lower case>``."""
