"""Chinese lines that wrap where the line is full, not at the last space.

Rich (and Textual's Content, which uses Rich's `divide_line`) breaks lines only at whitespace, so a
run of Chinese with no spaces is one "word": a line that ends "目的是让 group" leaves the rest of its
width empty and the Chinese run starts the next line (a user trial saw half-empty lines all over
the transcript and the review). Chinese may break between any two characters; an opening quote or
bracket stays with the character after it and closing punctuation with the one before."""

from __future__ import annotations

import re

import rich._wrap

CJK = "\u2e80-\u2fff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
OPENING = "“‘（「『《〈【"
CLOSING = "，。、；：！？”’）」』》〉】…\uff0c\uff1a\uff1b\uff01\uff1f\uff09"
WORD = re.compile(rf"\s*(?:[{OPENING}]*[{CJK}][{CLOSING}]*|[^\s{CJK}]+)\s*")
"""A "word" for line breaking: one Chinese character with its punctuation, or a run of anything else
without spaces (Rich's own is `\\s*\\S+\\s*`)."""


def break_between_cjk_characters() -> bool:
    """Let Rich break lines between Chinese characters, for this process (the TUI's). Rich has no
    public setting for it: its word pattern is swapped. False, and wrapping stays word by word, if a
    Rich release no longer has that pattern."""
    if not isinstance(getattr(rich._wrap, "re_word", None), re.Pattern):
        return False
    rich._wrap.re_word = WORD
    return True
