"""Writing a file whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(path: Path, text: str) -> None:
    """Through a temporary file renamed over `path`: a kill leaves the old file or the new one, never
    half of one, and two processes writing the same file do not mix their writes."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(partial, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)
