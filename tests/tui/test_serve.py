"""`rl-interview serve` driven by headless Chromium (Debian's chromium and chromium-driver, through
selenium): the page shows Home, Enter starts an interview, an answer typed and sent gets the
interviewer's reply. Everything stays on 127.0.0.1: Chromium resolves no other host.

The terminal in the page is drawn on a canvas, so the test reads what the app sent: every frame the
page's websocket receives is recorded by a script installed before the page's own.

With UPDATE_DOCS_SCREENSHOTS=1 the screenshot of the page also goes to docs/browser.png (the README's)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from isolation import child_env

from tui.serve import EXPOSED_WARNING, app_command, is_loopback

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
DOCS = Path(__file__).resolve().parents[2] / "docs"
WAIT_S = 90.0
CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\x1b[=>78DEHMc]")
RECORD_FRAMES = """
window.__frames = [];
const Native = window.WebSocket;
window.WebSocket = function (...args) {
  const socket = new Native(...args);
  socket.addEventListener("message", (event) => {
    if (event.data instanceof ArrayBuffer) { window.__frames.push(new Uint8Array(event.data)); }
    else if (event.data instanceof Blob) { event.data.arrayBuffer().then((b) => window.__frames.push(new Uint8Array(b))); }
  });
  return socket;
};
window.WebSocket.prototype = Native.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""
READ_FRAMES = """
const frames = window.__frames || [];
let size = 0; for (const f of frames) size += f.length;
const all = new Uint8Array(size); let at = 0;
for (const f of frames) { all.set(f, at); at += f.length; }
return new TextDecoder().decode(all);
"""


def test_only_loopback_addresses_count_as_private():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.20") and not is_loopback("example.org")
    assert "interview" in app_command() and "--plain" not in app_command()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, server: subprocess.Popen, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"serve exited with {server.returncode}: {server.stderr.read().decode()}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"serve did not listen on {port} within {timeout:.0f}s")


def serve_env(home: Path) -> dict[str, str]:
    return child_env(home)


def start_serve(home: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", "from tui.cli import main; main()", "serve", *args],
        env=serve_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


def test_a_non_loopback_address_is_warned_about(tmp_path):
    port = free_port()
    server = start_serve(tmp_path, "--host", "0.0.0.0", "--port", str(port))
    try:
        wait_for_port(port, server)
    finally:
        stop(server)
    assert EXPOSED_WARNING.format(host="0.0.0.0") in server.stderr.read().decode()


def screen(driver) -> str:
    """Everything the app has drawn so far, as text (escape sequences removed)."""
    return CONTROL.sub("", driver.execute_script(READ_FRAMES))


def wait_for_text(driver, predicate, what: str, timeout: float = WAIT_S) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = screen(driver)
        if predicate(text):
            return text
        time.sleep(0.3)
    raise AssertionError(
        f"the page never showed {what} within {timeout:.0f}s; last 2000 chars: {screen(driver)[-2000:]!r}"
    )


FOCUS_TERMINAL = """
const input = document.querySelector('.xterm-helper-textarea');
if (input) { input.focus(); }
return input !== null && document.activeElement === input;
"""


def press_in_terminal(driver, key: str, timeout: float = WAIT_S) -> None:
    """Type into the terminal the way a user's keyboard does, into the focused page: Chromium 150
    reports xterm.js's hidden input element "not interactable" to `send_keys` (on a new machine
    the test failed every time), so the input is focused by script and the key sent to the page."""
    from selenium.webdriver.common.action_chains import ActionChains

    deadline = time.monotonic() + timeout
    while not driver.execute_script(FOCUS_TERMINAL):
        if time.monotonic() > deadline:
            raise AssertionError(f"the terminal's input never took the focus within {timeout:.0f}s")
        time.sleep(0.5)
    ActionChains(driver).send_keys(key).perform()


@pytest.mark.slow  # a server, Chromium and an app process: about 20 s
@pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER) and not os.environ.get("CI"),
    reason="needs Debian's chromium and chromium-driver (.ci/run installs them; in CI a missing one fails)",
)
def test_the_browser_shows_home_starts_an_interview_and_gets_the_reply(tmp_path):
    assert CHROMIUM and CHROMEDRIVER, (
        "chromium and chromedriver must be installed: apt-get install -y chromium chromium-driver"
    )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    port = free_port()
    server = start_serve(tmp_path / "home", "--port", str(port))
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--window-size=1280,800",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ):
        options.add_argument(flag)
    driver = None
    try:
        wait_for_port(port, server)
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_FRAMES})
        driver.get(f"http://127.0.0.1:{port}/")
        wait_for_text(driver, lambda t: "Press Enter to start an interview" in t, "Home")
        wait_for_text(driver, lambda t: "loading the interviewer" in t, "Home loading the interviewer")
        time.sleep(3)  # the interviewer loads in the background; Enter waits for it either way
        press_in_terminal(driver, Keys.ENTER)
        wait_for_text(driver, lambda t: "Question · Q1/6" in t, "the first question")
        asked = len(screen(driver))
        ActionChains(driver).send_keys("It clips the probability ratio to stay near the old policy.").perform()
        wait_for_text(driver, lambda t: "old policy" in t[asked:], "the typed answer")
        sent = len(screen(driver))
        ActionChains(driver).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()
        # The transcript labels the interviewer's next turn: a follow-up or a hint on question 1, or question 2.
        wait_for_text(
            driver,
            lambda t: re.search(r"(?:Follow-up|Hint) · Q1/6 · |Question · Q2/6 · ", t[sent:]),
            "the interviewer's reply",
        )
        wait_for_text(
            driver,
            lambda t: "Follow-ups 1/3" in t[sent:] or "Question 2 of 6" in t[sent:],
            "the side panel counting the reply",
        )
        time.sleep(1.5)  # let the last frames land before the picture
        shot = tmp_path / "browser.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        if os.environ.get("UPDATE_DOCS_SCREENSHOTS") == "1":
            shutil.copy(shot, DOCS / "browser.png")
    finally:
        if driver is not None:
            driver.quit()
        stop(server)
