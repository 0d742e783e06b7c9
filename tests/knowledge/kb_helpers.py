"""Helpers shared by the knowledge tests (a plain module: conftest files are not importable)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).parent / "data"


def dump_entry(path: Path, entry: dict[str, Any]) -> str:
    """Write a bank entry as YAML (block style, keys in the given order); returns the text."""
    text = yaml.safe_dump(entry, sort_keys=False, allow_unicode=True, default_flow_style=False)
    path.write_text(text, encoding="utf-8")
    return text


def line_containing(text: str, needle: str) -> int:
    """1-based number of the only line of `text` that contains `needle`."""
    hits = [n for n, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, f"{needle!r} is on lines {hits}"
    return hits[0]


def entry(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(base)
    out.update(changes)
    return out


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def json_out(result: Any) -> Any:
    """The JSON a CLI command printed on stdout."""
    return json.loads(result.stdout)
