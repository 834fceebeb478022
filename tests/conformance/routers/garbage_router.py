"""A router that breaks the endpoint contract: it posts text that is not JSON, then exits."""

from __future__ import annotations

import os
import urllib.error
import urllib.request

url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
request = urllib.request.Request(url, b"this is not json", {"Content-Type": "application/json"})
try:
    urllib.request.urlopen(request, timeout=10).read()
except urllib.error.HTTPError as exc:
    print(f"the endpoint said {exc.code}")
