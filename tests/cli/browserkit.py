"""A headless Chromium driven by selenium, for the tests that need a real browser.

Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them): a test
class that needs them calls :func:`start_browser` in ``setUpClass``; without them
it is skipped, saying why -- unless ``MCP_REQUIRE_BROWSER=1`` (CI), where a missing
browser fails instead.  Selenium is told where both binaries are, so it never
looks for (or downloads) a driver of its own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import unittest
from typing import Any

__all__ = ["start_browser", "browser_missing", "REQUIRED"]

#: CI sets it: a missing browser is a failure there, not a skip.
REQUIRED = os.environ.get("MCP_REQUIRE_BROWSER") == "1"


def _binaries() -> tuple[str | None, str | None]:
    browser = os.environ.get("MCP_CHROMIUM") or shutil.which("chromium") or \
        shutil.which("chromium-browser")
    driver = os.environ.get("MCP_CHROMEDRIVER") or shutil.which("chromedriver")
    return browser, driver


def browser_missing() -> str | None:
    """Why no browser test can run here, or None when one can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    browser, driver = _binaries()
    if browser is None:
        return "no chromium on PATH (apt-get install chromium)"
    if driver is None:
        return "no chromedriver on PATH (apt-get install chromium-driver)"
    return None


def start_browser(case: type[unittest.TestCase]) -> Any:
    """A headless Chromium for ``case`` (quit at its class cleanup), or skip/fail."""
    missing = browser_missing()
    if missing is not None:
        if REQUIRED:
            raise AssertionError(f"MCP_REQUIRE_BROWSER=1 but {missing}")
        raise unittest.SkipTest(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    browser, driver = _binaries()
    assert browser is not None and driver is not None
    profile = tempfile.mkdtemp(prefix="mcp-chromium-")
    case.addClassCleanup(shutil.rmtree, profile, ignore_errors=True)
    options = Options()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--no-first-run", "--disable-extensions",
                     "--disable-background-networking", "--disable-sync",
                     f"--user-data-dir={profile}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    chrome = webdriver.Chrome(options=options,
                              service=Service(executable_path=driver,
                                              log_output=subprocess.DEVNULL))
    case.addClassCleanup(chrome.quit)
    return chrome
