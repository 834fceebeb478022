"""Headless Chromium for the tests of pages people look at: Debian's chromium, driven by
Selenium through Debian's chromedriver (nothing is downloaded; no network is used).

CI installs the browser (.ci/run): there a missing one is a failure, elsewhere the module
that imports this one is skipped. Screenshots go to ``test-artifacts/`` at the root of the
repository (ignored by git).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"

if not os.environ.get("CI"):
    pytest.importorskip("selenium.webdriver")
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("needs Debian's chromium and chromium-driver (.ci/run installs them)",
                    allow_module_level=True)


@contextmanager
def chromium(width: int = 1440, height: int = 900, extra: tuple[str, ...] = (),
             performance_log: bool = False) -> Iterator[Any]:
    """A headless Chromium with a fresh profile, quit and removed on the way out; ``extra``
    flags are added, and ``performance_log`` records the network events for ``get_log``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="teamwire-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                 f"--window-size={width},{height}", *extra):
        options.add_argument(flag)
    if performance_log:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def keep_screenshot(shot: Path) -> None:
    """Copy a screenshot into ``test-artifacts/``."""
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(shot, ARTIFACTS / shot.name)
