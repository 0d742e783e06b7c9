"""A lock shared by our processes on one home: an advisory `flock` on a file beside what it guards.
Where the platform has no `fcntl`, it does nothing (one process at a time is then the user's rule)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not on the platforms we ship for
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def file_lock(path: Path, exclusive: bool = True) -> Iterator[None]:
    """Hold `path` locked (exclusive, or shared with other readers) until the block ends; waits."""
    if fcntl is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
