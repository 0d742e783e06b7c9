"""`rl-interview serve`: the same app in a browser, through textual-serve. Each browser tab gets an
app process of its own, reading and writing the same home folder as the terminal app."""

from __future__ import annotations

import ipaddress
import shlex
import sys

EXPOSED_WARNING = (
    "warning: {host} is not a loopback address: anyone who can reach it on the network can open the app "
    "and read your sessions, reports and profile. Use it only on a network you trust."
)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve to anything


def app_command() -> str:
    """The command textual-serve runs for each browser session: the TUI (never the plain front end,
    which a process without a terminal would otherwise get)."""
    return shlex.join([sys.executable, "-c", "from tui.cli import main; main()", "interview"])


def serve(host: str, port: int) -> None:
    from textual_serve.server import Server

    if not is_loopback(host):
        print(EXPOSED_WARNING.format(host=host), file=sys.stderr)
    Server(app_command(), host=host, port=port, title="rl-interview").serve()
