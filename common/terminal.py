"""Keeping the terminal safe from text we did not write (answers, documents): escape sequences
(ANSI CSI, OSC) and other control characters never reach it raw. Every layer prints such text:
the store's snippets, the interviewer's quotes, the front ends."""

from __future__ import annotations

import re
import unicodedata

ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
C1_CONTROLS = {code: f"\\u{code:04x}" for code in range(0x80, 0xA0)}
"""U+0080-U+009F: valid in JSON strings, but some terminals obey them (U+009B is an 8-bit CSI)."""


def clean_for_display(text: str) -> str:
    """Remove ANSI/OSC escapes and other control characters, keeping newlines and tabs."""
    text = ANSI.sub("", text)
    return "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch)[0] != "C")


def terminal_safe_json(encoded: str) -> str:
    """JSON text with C1 control characters written as \\u escapes (json.dumps already escapes
    C0 ones); the data it decodes to is unchanged."""
    return encoded.translate(C1_CONTROLS)
