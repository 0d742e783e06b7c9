"""Where the knowledge store lives and how a process reaches it: an embedded Chroma folder, which
builds lock while they write (see knowledge/store.py for why), or a shared Chroma server, which
serialises writes itself."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlparse

from common.errors import InputError
from common.file_lock import file_lock
from common.settings import Settings


class StoreError(InputError):
    """The store cannot be used as it is; the message names the fix."""


def store_location(settings: Settings) -> str:
    return settings.chroma_url or str(settings.store_dir / "chroma")


def connect(settings: Settings) -> Any:
    """A Chroma client for the configured store (a server must answer a heartbeat first)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    try:
        if settings.chroma_url:
            url = urlparse(settings.chroma_url)
            client = chromadb.HttpClient(
                host=url.hostname or "127.0.0.1",
                port=url.port or 8000,
                ssl=url.scheme == "https",
                settings=chroma_settings,
            )
            client.heartbeat()
            return client
        path = settings.store_dir / "chroma"
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=chroma_settings)
    except Exception as exc:  # chromadb raises many kinds; all mean the same to the user
        raise StoreError(unusable(settings, exc)) from exc


def unusable(settings: Settings, exc: BaseException) -> str:
    """What went wrong with the store, and the fix."""
    reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    if settings.chroma_url:
        return f"cannot reach the Chroma server at {settings.chroma_url} ({reason}); start it with `chroma run` or unset RL_INTERVIEW_CHROMA_URL"
    return f"the knowledge store at {store_location(settings)} is damaged or locked ({reason}); fix: rl-interview kb build --rebuild"


@contextmanager
def store_lock(settings: Settings, exclusive: bool) -> Iterator[None]:
    """Builds write alone; readers may share (a Chroma server serialises writes itself)."""
    if settings.chroma_url:
        yield
        return
    with file_lock(settings.store_dir / "build.lock", exclusive):
        yield


def forget_open_clients() -> None:
    """Chroma keeps one client per store path per process; drop them so the next open reads afresh."""
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()
