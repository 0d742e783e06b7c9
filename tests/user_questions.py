"""Questions of the user's own for tests: copies of one of ours under a my-... id, with a note."""

from __future__ import annotations

import re
from pathlib import Path

from knowledge.bank import BANK_DIR


def write_user_question(folder: Path, question_id: str, like: str = "algo-07", note: str = "") -> Path:
    """`<folder>/<question_id>.yaml`, our question `like` under the new id, and its note beside it
    (`note` is its body). The YAML file written."""
    folder.mkdir(parents=True, exist_ok=True)
    text = (BANK_DIR / f"{like}.yaml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^id: .*$", f"id: {question_id}", text, count=1)
    text = re.sub(r"(?ms)^notes:\n(  - .*\n)+|^notes: \[.*\]\n", f"notes: [{question_id}]\n", text, count=1)
    path = folder / f"{question_id}.yaml"
    path.write_text(text, encoding="utf-8")
    (folder / f"{question_id}.md").write_text(
        f"# Notes on {question_id}\n\nQuestion: {question_id}\n\n{note}\n", encoding="utf-8"
    )
    return path


def break_field(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
