"""Text we did not write never reaches the terminal as control sequences."""

import json

from common.terminal import clean_for_display, terminal_safe_json


def test_escape_sequences_and_controls_are_removed_but_text_and_layout_stay():
    raw = "clip\x1b[2J the\x1b]0;pwned\x07 ratio\x9b31m\tand\nmin\x00"
    assert clean_for_display(raw) == "clip the ratio31m\tand\nmin"


def test_json_keeps_the_data_but_never_writes_c1_controls_raw():
    data = {"answer": "a\x9b[2Jb \u0085 c 中文", "n": 1}
    encoded = terminal_safe_json(json.dumps(data, ensure_ascii=False))
    assert not any(0x80 <= ord(ch) <= 0x9F for ch in encoded)
    assert "中文" in encoded
    assert json.loads(encoded) == data
