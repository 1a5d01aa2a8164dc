"""Headless Chromium (Debian's ``chromium`` package) for the HTML tests and for ``reports/regenerate.py``: the DOM
of a page after it loaded, the console messages it produced, and screenshots. No network: the page is a local
file, and the browser is started without background services in a fresh profile folder."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0")
TIMEOUT_S = 120
CONSOLE_MARK = ":CONSOLE"  # Chromium's log lines for the page's console messages (errors, warnings, logs)


def find_browser() -> str | None:
    """The path of a Chromium-like browser, or None."""
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


def _run(browser: str, page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="roofline-chromium-") as profile:
        return subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()],
                              capture_output=True, text=True, timeout=TIMEOUT_S, check=False)


def load(browser: str, page: Path) -> tuple[str, list[str]]:
    """The page's DOM once loaded (``--dump-dom``) and the console messages it logged."""
    done = _run(browser, page, "--dump-dom")
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"{browser} could not load {page.name} (exit {done.returncode}): {done.stderr[-800:]}")
    return done.stdout, [line for line in done.stderr.splitlines() if CONSOLE_MARK in line]


def screenshot(browser: str, page: Path, out: Path, width: int = 1280, height: int = 1600) -> None:
    """A PNG of the top ``width`` x ``height`` pixels of the page."""
    done = _run(browser, page, f"--screenshot={out.resolve()}", f"--window-size={width},{height}")
    if not out.is_file():
        raise RuntimeError(f"{browser} wrote no screenshot of {page.name} (exit {done.returncode}): "
                           f"{done.stderr[-800:]}")
