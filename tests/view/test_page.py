"""The page ``teamwire view`` writes: self-contained, and whatever the transcripts hold
stays data (no markup, no script, nothing loaded)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from typing import Any

from teamwire.view.page import content_security_policy, json_for_script, render_page
from teamwire.view.session import load_session
from tests.view.helpers import UIO, demo_bundle, encoded

HOSTILE = ('<script>window.pwned=1</script></script><script>window.pwned=2</script>'
           '</style><style>body{display:none}</style><a href="javascript:alert(1)">x</a>'
           '<img src=x onerror=alert(1)> &amp; &lt;b&gt; &#x3C;script&#x3E; \u2028 <!--')


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: dict[int, str] = {}
        self.open: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self.open = len(self.tags) - 1

    def handle_endtag(self, tag: str) -> None:
        self.open = None

    def handle_data(self, data: str) -> None:
        if self.open is not None:
            self.texts[self.open] = self.texts.get(self.open, "") + data


def _hostile_bundle() -> dict[str, Any]:
    bundle = demo_bundle()
    ui = bundle["agents"][UIO]["messages"]
    ui[0]["content"] = HOSTILE  # the system prompt
    ui[2]["tool_calls"][0]["function"]["arguments"] = json.dumps({"x": HOSTILE})
    bundle["session"] = HOSTILE
    bundle["agents"][HOSTILE + "_1"] = {"role_id": "ui-operator", "agent_id": 1,
                                         "messages": [{"role": "user", "content": HOSTILE}]}
    return bundle


def _page() -> tuple[str, _Tags]:
    page = render_page(load_session(encoded(_hostile_bundle()), "b.json"))
    parser = _Tags()
    parser.feed(page)
    return page, parser


def test_the_page_has_exactly_its_own_two_scripts_and_one_stylesheet() -> None:
    _page_text, parsed = _page()
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    assert scripts == [{"type": "application/json", "id": "tw-data"}, {}]
    assert [tag for tag, _ in parsed.tags].count("style") == 1
    assert not any(tag in ("img", "a", "link", "iframe", "object") for tag, _ in parsed.tags)
    assert not any(k.startswith("on") for _, attrs in parsed.tags for k in attrs)


def test_the_hostile_texts_come_back_unchanged_from_the_data() -> None:
    _page_text, parsed = _page()
    at = next(k for k, (tag, attrs) in enumerate(parsed.tags) if attrs.get("id") == "tw-data")
    data = json.loads(parsed.texts[at])
    assert data["title"] == HOSTILE
    assert HOSTILE + "_1" in [lane["name"] for lane in data["lanes"]]
    texts = [r.get("x", r["v"]) for r in data["rows"]]
    assert HOSTILE in texts
    calls = [c[2] for r in data["rows"] for c in r.get("c", [])]
    assert json.dumps({"x": HOSTILE}) in calls


def test_the_title_is_escaped() -> None:
    page, _parsed = _page()
    title = re.search(r"<title>(.*?)</title>", page, re.S)
    assert title is not None and "<script>" not in title.group(1)
    assert "&lt;script&gt;" in title.group(1)


def test_the_policy_allows_only_the_pages_own_script_and_style() -> None:
    page, parsed = _page()
    meta = next(attrs for tag, attrs in parsed.tags
                if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy")
    policy = meta["content"] or ""
    script = parsed.texts[next(k for k, (tag, attrs) in enumerate(parsed.tags)
                               if tag == "script" and not attrs)]
    style = parsed.texts[next(k for k, (tag, _) in enumerate(parsed.tags) if tag == "style")]

    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert f"script-src 'sha256-{digest(script)}'" in policy
    assert f"style-src 'sha256-{digest(style)}'" in policy
    assert policy.startswith("default-src 'none';") and "img-src data:" in policy
    assert "unsafe-inline" not in policy and "http" not in page.split("<body>")[0].replace(
        "http-equiv", "")
    assert policy == content_security_policy(script, style)


def test_script_json_cannot_close_its_element() -> None:
    text = json_for_script({"a": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!-- & \u2028"}


def test_the_page_fetches_nothing() -> None:
    page, parsed = _page()
    assert not any(attrs.get("src") or attrs.get("href") for _, attrs in parsed.tags)
    assert "url(http" not in page and "@import" not in page
