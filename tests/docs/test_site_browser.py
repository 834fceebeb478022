"""The published site as a reader sees it: built, served on 127.0.0.1, opened in headless
Chromium with every other host unreachable. Nothing may be fetched from elsewhere, the
pictures render as SVG, searching a requirement id lands on it, every internal link leads to
a page and an anchor that exist, and screenshots of the main pages are kept."""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from tests.browser import chromium, keep_screenshot
from tests.docs.hook_modules import load

ROOT = Path(__file__).resolve().parents[2]
SHOTS = {"home": "", "spec-routing": "spec/07-routing/", "quick-reference": "quick-reference/",
         "rule-catalog": "rules/", "sample-report": "certify-sample-report.html",
         "schema-message": "schemas/message/", "command-line": "cli/",
         "certify-walkthrough": "certify-walkthrough/", "api": "api/"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    directory = tmp_path_factory.mktemp("site")
    build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(directory), strict=True))
    return directory


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Every name but the loopback address resolves to nothing: a request that leaves the
    # site fails, and the performance log still records that it was attempted.
    with chromium(1280, 900, extra=("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",),
                  performance_log=True) as driver:
        yield driver


def _requested(driver: Any) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def _open(driver: Any, url: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return document.readyState") == "complete")


def test_no_page_requests_anything_but_the_site(browser: Any, served: str) -> None:
    pages = [*SHOTS.values(), "concepts/", "router/", "grammar/", "glossary/", "view/"]
    browser.get_log("performance")
    for page in pages:
        _open(browser, served + page)
    outside = [url for url in _requested(browser)
               if not url.startswith((served, "data:", "about:", "blob:"))]
    assert outside == []


@pytest.mark.parametrize(("page", "selector"), [
    ("router/", "svg#tw-states, .tw-figure svg"),
    ("concepts/", ".tw-figure svg"),
    ("grammar/", "svg.railroad-diagram"),
])
def test_pictures_render_as_svg(browser: Any, served: str, page: str, selector: str,
                                tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    _open(browser, served + page)
    drawn = browser.find_elements(By.CSS_SELECTOR, selector)
    assert drawn, f"no SVG matching {selector} on {page}"
    box = drawn[0].rect
    assert box["width"] > 100 and box["height"] > 50
    shot = tmp_path / f"site-figure-{page.strip('/')}.png"
    drawn[0].screenshot(str(shot))
    keep_screenshot(shot)


@pytest.mark.parametrize(("query", "page", "anchor"), [
    ("TW-ROUTE-014", "spec/07-routing/", "TW-ROUTE-014"),
    ("TW402", "rules/", "tw402"),
    ("create_sub_agent", "spec/06-tools/", "create_sub_agent"),
])
def test_searching_an_id_lands_on_its_definition(browser: Any, served: str, query: str,
                                                 page: str, anchor: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    _open(browser, served)
    browser.execute_script("document.querySelector('[data-md-toggle=search]').click()")
    field = browser.find_element(By.CSS_SELECTOR, "input.md-search__input")
    field.send_keys(query)
    # The results list is filled, and filled again, as the index answers each keystroke:
    # read it in one script (an element may be replaced between two WebDriver calls) and
    # take the first section result once two polls in a row agree. Results are grouped by
    # page; the first section result is the definition itself.
    seen: list[str | None] = [None]

    def settled(driver: Any) -> str | None:  # None: not settled yet, so the wait goes on
        href = driver.execute_script(
            "const a = [...document.querySelectorAll('.md-search-result__item a')]"
            ".map(e => e.href).filter(h => h.includes('#')); return a.length ? a[0] : null;")
        stable = href if href is not None and href == seen[0] else None
        seen[0] = href
        return stable

    href = WebDriverWait(browser, 20, poll_frequency=0.3).until(settled)
    assert href is not None  # until() returns only a value that is not None
    assert href.split("?")[0] == served + page and href.endswith("#" + anchor)
    _open(browser, href)
    target = browser.find_element(By.ID, anchor)
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", target)
    assert 0 <= top < 400


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "a" and values.get("href"):
            self.links.append(str(values["href"]))


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_internal_link_leads_to_a_page_and_anchor_that_exist(site: Path) -> None:
    base = "http://site/"
    pages = {path: _parse(path) for path in site.rglob("*.html")}
    broken = []
    for path, parsed in pages.items():
        here = base + path.relative_to(site).as_posix()
        for href in parsed.links:
            url = urlsplit(urljoin(here, href))
            if url.scheme != "http" or url.netloc != "site":
                continue
            target = site / unquote(url.path).lstrip("/")
            if target.is_dir() or url.path.endswith("/"):
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(site)}: {href}")
            elif url.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(url.fragment) not in ids:
                    broken.append(f"{path.relative_to(site)}: {href} (no such anchor)")
    assert broken == []


@pytest.mark.parametrize("name", sorted(SHOTS))
def test_screenshots_of_the_main_pages(browser: Any, served: str, name: str,
                                       tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    _open(browser, served + SHOTS[name])
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 1280, f"{name} is wider than the window"
    assert browser.find_elements(By.CSS_SELECTOR, "h1")
    shot = tmp_path / f"site-{name}.png"
    browser.save_screenshot(str(shot))
    keep_screenshot(shot)


def test_the_walkthrough_shows_the_router_s_code_inside_the_column(browser: Any, served: str,
                                                                 tmp_path: Path) -> None:
    """Every excerpt of mini_router.mjs is a code block with its lines in it, numbered from
    the line its caption names, and wraps its long lines rather than hiding their ends."""
    from selenium.webdriver.common.by import By

    excerpts = load("excerpts")
    text = (ROOT / "docs" / "certify-walkthrough.md").read_text(encoding="utf-8")
    asked = [m.group("what").split() for m in excerpts.MARKER.finditer(text)]
    _open(browser, served + "certify-walkthrough/")
    blocks = browser.find_elements(By.CSS_SELECTOR, ".tw-excerpt pre > code")
    captions = browser.find_elements(By.CSS_SELECTOR, ".tw-excerpt-caption")
    assert len(blocks) == len(captions) == len(asked) > 0
    for (path, name), block, caption in zip(asked, blocks, captions, strict=True):
        region = excerpts.excerpt(path, name)
        assert caption.get_attribute("data-excerpt") == name
        assert f"lines {region.first}–{region.last}" in caption.text
        numbers = [e.get_attribute("data-linenos").strip()
                   for e in block.find_elements(By.CSS_SELECTOR, "[data-linenos]")]
        assert numbers == [str(n) for n in range(region.first, region.last + 1)], name
        shown = block.text
        assert shown.strip(), name
        # the first line that says something is on the page, whole
        assert next(line.strip() for line in region.lines if line.strip()) in \
            " ".join(shown.split()), name
        fits = browser.execute_script(
            "const pre = arguments[0].parentElement; return pre.scrollWidth <= pre.clientWidth;",
            block)
        assert fits, f"excerpt {name} is wider than its box"
    deliver = blocks[[name for _, name in asked].index("deliver")]
    # in the middle of the window, clear of the sticky header: a screenshot of an element
    # keeps only what of it is in view
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", deliver)
    shot = tmp_path / "site-excerpt-deliver.png"
    deliver.find_element(By.XPATH, "./ancestor::div[contains(@class, 'tw-excerpt')]").screenshot(
        str(shot))
    keep_screenshot(shot)


def test_the_api_page_documents_parse_from_its_docstring(browser: Any, served: str,
                                                        tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    from teamwire import envelope

    _open(browser, served + "api/")
    entry = browser.find_element(By.ID, "teamwire.envelope.parse")
    assert entry.text.split()[0] == "parse"
    item = entry.find_element(By.XPATH, "./ancestor::div[contains(@class, 'doc-function')][1]")
    signature = item.find_element(By.CSS_SELECTOR, ".doc-signature code").text
    assert " ".join(signature.split()) == "parse(text: str | bytes) -> Envelope"
    # the docstring's first line, its ``code`` shown as code
    summary = (envelope.parse.__doc__ or "").split("\n")[0].replace("``", "")
    assert summary and summary in item.text
    # every public name of the envelope library has its entry: under the package, or under
    # the module that defines it where the package's name is taken by a module (render)
    missing = [name for name in envelope.__all__
               if not browser.find_elements(By.ID, f"teamwire.envelope.{name}")
               and not browser.find_elements(
                   By.ID, f"{getattr(getattr(envelope, name), '__module__', '')}.{name}")]
    assert missing == []
    assert browser.find_elements(By.ID, "teamwire.conformance.inprocess.InProcessSetup")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", item)
    shot = tmp_path / "site-api-parse.png"
    item.screenshot(str(shot))
    keep_screenshot(shot)


def test_each_schema_is_served_at_its_id(served: str) -> None:
    import urllib.request

    for path in sorted((ROOT / "spec" / "schemas").glob("*.schema.json")):
        schema_id = json.loads(path.read_text(encoding="utf-8"))["$id"]
        url = served + urlsplit(schema_id).path.lstrip("/")
        with urllib.request.urlopen(url) as response:
            assert response.read() == path.read_bytes(), url


def test_no_page_names_the_checkout_it_was_built_in(site: Path) -> None:
    leaks = [p.relative_to(site).as_posix() for p in site.rglob("*.html")
             if str(ROOT) in p.read_text(encoding="utf-8")]
    assert leaks == []
