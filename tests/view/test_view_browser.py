"""The page in a real browser: Debian's Chromium, driven by Selenium through Debian's
chromedriver (nothing is downloaded; no network is used).

The screenshot of the demo's page is saved in the test's temporary directory and copied
to ``test-artifacts/view-demo.png`` at the root of the repository (ignored by git).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from teamwire.view.page import render_page
from teamwire.view.sequence import Geometry, arrow_path
from teamwire.view.session import load_session
from tests.browser import chromium, keep_screenshot
from tests.view.helpers import TL, UIO, demo_bundle, encoded, with_lost_message


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


def _open(browser: Any, tmp_path: Path, bundle: dict[str, Any], fragment: str = "") -> None:
    page = tmp_path / "view.html"
    page.write_text(render_page(load_session(encoded(bundle), "bundle.json")), encoding="utf-8")
    browser.get(page.as_uri() + fragment)
    assert browser.execute_script("return document.body.dataset.ready") == "1"


def _css(browser: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(browser.find_elements(By.CSS_SELECTOR, selector))


def test_the_demo_draws_lanes_arrows_and_turns(browser: Any, tmp_path: Path) -> None:
    _open(browser, tmp_path, demo_bundle())
    heads = [h.text.split("\n")[0] for h in _css(browser, "#heads .head")]
    assert heads == [TL, UIO, "Full-Stack Engineer_1"]
    assert len(_css(browser, "#links path.tws-arrow")) >= 5
    assert _css(browser, "#links rect.tws-span")
    assert _css(browser, "#links g.tws-gap")  # the system prompts: order unknown
    kinds = {c.get_attribute("class").split()[1] for c in _css(browser, ".card.proto")}
    assert {"tws-k-task", "tws-k-progress"} <= kinds
    shot = tmp_path / "view-demo.png"
    assert browser.save_screenshot(str(shot))
    keep_screenshot(shot)


def test_the_script_draws_arrows_as_the_static_renderer_does(browser: Any,
                                                            tmp_path: Path) -> None:
    _open(browser, tmp_path, demo_bundle())
    g = Geometry()
    for case in [(0, 0, 1, 2, True, True), (2, 5, 0, 1, True, False), (1, 3, 1, 7, True, True),
                 (0, 4, 2, 4, False, False)]:
        drawn = browser.execute_script(
            "return window.teamwireView.arrowPath(arguments[0], ...arguments[1])",
            g.as_dict(), list(case))
        assert drawn == arrow_path(g, *case)


def test_a_finding_marker_opens_its_message(browser: Any, tmp_path: Path) -> None:
    bundle, sent = with_lost_message(demo_bundle())
    _open(browser, tmp_path, bundle)
    pin = None
    for _ in range(40):  # scroll until the card is drawn: only cards in sight are
        pin = next((p for p in _css(browser, ".card .pin")
                    if f"#{sent}" in p.find_element("xpath", "..").text), None)
        if pin is not None:
            break
        browser.execute_script("document.getElementById('scroller').scrollTop += 300;"
                               "window.teamwireView.draw()")
    assert pin is not None
    assert "error" in pin.get_attribute("class")
    pin.click()
    detail = _css(browser, "#detail")[0]
    assert "closed" not in (detail.get_attribute("class") or "")
    assert f"{TL} · message {sent}" in detail.text
    assert "TW505" in detail.text and "dark-mode" in detail.text
    assert browser.execute_script("return location.hash") == f"#m/Team%20Leader/{sent}"


def test_a_link_to_a_message_selects_it(browser: Any, tmp_path: Path) -> None:
    _open(browser, tmp_path, demo_bundle(), "#m/UI%20Operator_1/6")
    assert f"{UIO} · message 6" in _css(browser, "#detail")[0].text
    assert _css(browser, ".card.sel")[0].get_attribute("id") is not None


def test_filters_and_search(browser: Any, tmp_path: Path) -> None:
    _open(browser, tmp_path, demo_bundle())
    total = browser.execute_script("return window.teamwireView.visible().length")
    _css(browser, "#filters .chip[data-kind='other']")[0].click()
    protocol = browser.execute_script("return window.teamwireView.visible().length")
    assert 0 < protocol < total
    _css(browser, "#filters .chip[data-lane='2']")[0].click()
    assert len(_css(browser, "#heads .head")) == 2
    box = _css(browser, "#search input")[0]
    box.send_keys("dark-mode\n")
    assert "of" in _css(browser, "#search .count")[0].text
    assert "dark-mode" in _css(browser, "#detail pre")[0].text


def test_the_policy_blocks_a_script_put_into_the_page(browser: Any, tmp_path: Path) -> None:
    bundle = demo_bundle()
    hostile = "<script>window.pwned = 1</script><img src=x onerror='window.pwned=2'>"
    bundle["agents"][UIO]["messages"][0]["content"] = hostile
    _open(browser, tmp_path, bundle, "#m/UI%20Operator_1/0")
    assert hostile in _css(browser, "#detail pre")[0].text  # shown as text
    blocked = browser.execute_script("""
        window.violations = [];
        document.addEventListener('securitypolicyviolation',
                                  e => window.violations.push(e.violatedDirective));
        const s = document.createElement('script');
        s.textContent = 'window.pwned = 3';
        document.body.appendChild(s);
        return window.pwned === undefined;""")
    assert blocked
    assert browser.execute_script("return window.pwned === undefined && document.images.length")\
        == 0
    violations = browser.execute_script("return window.violations")
    assert any(v.startswith("script-src") for v in violations)
