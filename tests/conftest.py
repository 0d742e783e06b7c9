"""Shared fixtures: every test runs with its own home folder, no config file, the hash embedding
and no network access beyond this machine."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path

import pytest
from isolation import isolate


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """RL_INTERVIEW_HOME is tmp_path itself, a config path that does not exist, the `hash` embedding, the
    cue-only judge.

    Any RL_INTERVIEW_* variable of the person running the tests is removed first, so their setup
    (a Chroma server, an LLM key) never leaks into a test.
    """
    isolate(monkeypatch, tmp_path, tmp_path / "no-such-config.toml")
    return tmp_path


def _is_local(address: object) -> bool:
    if isinstance(address, tuple) and address:
        host = address[0]
        if host in ("localhost", ""):
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False  # a host name other than localhost would need DNS and the network
    return True  # AF_UNIX paths and the like are local


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Connections to anything but the loopback interface fail, as they would offline."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def connect(self: socket.socket, address: object) -> None:
        if not _is_local(address):
            raise OSError(f"network access blocked in tests: {address!r}")
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: object) -> int:
        if not _is_local(address):
            raise OSError(f"network access blocked in tests: {address!r}")
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)


@pytest.fixture
def forget_chroma():
    """Call it to make this process look like a fresh one to Chroma (no cached clients)."""
    return forget_chroma_clients


@pytest.fixture(autouse=True)
def fresh_chroma_clients():
    """Chroma keeps one client system per store path for the life of the process; drop them after
    each test so sqlite handles and threads do not pile up across the suite."""
    yield
    forget_chroma_clients()


def forget_chroma_clients() -> None:
    """What a new process would see: no Chroma client cached for any path."""
    try:
        from chromadb.api.client import SharedSystemClient
    except ImportError:  # chromadb is a dependency; nothing to clean if it was never imported
        return
    try:
        SharedSystemClient.clear_system_cache()
    except Exception:  # a half-started system (a damaged store) may fail to stop; forget it anyway
        SharedSystemClient._identifier_to_system.clear()
