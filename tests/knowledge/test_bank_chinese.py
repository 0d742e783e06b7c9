"""The bank in Chinese: every shipped statement, correction and model answer has its Chinese text,
with the same figures as the English, and a question without them (one of the user's own) shows the
English in a Chinese session."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kb_helpers import dump_entry

from agent.text import CJK_CHAR
from knowledge.bank import load_bank, validate_bank

BANK = load_bank()
NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?:e-?\d+)?(?![\w]|\.\d)")


def numbers(text: str) -> set[str]:
    """The figures a text states ("1,800" and "1800" are one figure)."""
    return {n.replace(",", "") for n in NUMBER.findall(text)}


def texts(qid: str) -> list[tuple[str, str, str | None]]:
    """(what, English, Chinese) for every text of a question that a Chinese session shows."""
    question = BANK[qid]
    out = [(f"{qid} model answer", question.model_answer, question.model_answer_zh)]
    out += [(kp.id, kp.statement, kp.statement_zh) for kp in question.key_points]
    for wrong in question.misconceptions:
        out += [(wrong.id, wrong.statement, wrong.statement_zh), (wrong.id, wrong.correction, wrong.correction_zh)]
    return out


@pytest.mark.parametrize("qid", list(BANK))
def test_every_shipped_text_is_in_chinese_with_the_same_figures(qid):
    for what, english, chinese in texts(qid):
        assert chinese and CJK_CHAR.search(chinese), f"{what}: no Chinese text"
        missing = numbers(english) - numbers(chinese)
        assert not missing, f"{what}: the Chinese drops the figures {sorted(missing)}"


def test_a_question_without_chinese_shows_its_english_in_a_chinese_session(tmp_path: Path, valid_entry):
    folder = tmp_path / "bank"
    folder.mkdir()
    dump_entry(folder / "algo-07.yaml", valid_entry)
    bank, problems = validate_bank(folder)
    assert problems == []
    question = bank["algo-07"]
    point, wrong = question.key_points[0], question.misconceptions[0]
    assert point.statement_zh is None and question.model_answer_zh is None
    assert point.statement_in("zh") == point.statement
    assert question.model_answer_in("zh") == question.model_answer
    assert question.correction_in(wrong.id, "as the session recorded it", "zh") == "as the session recorded it"


def test_a_chinese_session_reads_the_chinese_and_an_english_one_what_was_recorded():
    question = BANK["algo-07"]
    point, wrong = question.key_points[0], question.misconceptions[0]
    assert point.statement_in("zh") == point.statement_zh.strip()
    assert point.statement_in("en") == point.statement
    assert question.correction_in(wrong.id, "recorded", "zh") == wrong.correction_zh.strip()
    assert question.correction_in(wrong.id, "recorded", "en") == "recorded"
    assert question.statement_in("no-longer-a-point", "recorded", "zh") == "recorded"


def test_bank_show_in_chinese_prints_the_chinese_texts(runner, app):
    question = BANK["algo-07"]

    def shown(*lang: str) -> str:
        result = runner.invoke(app, ["bank", "show", "algo-07", *lang])
        assert result.exit_code == 0, result.output
        return "".join(result.output.split())  # the console wraps long lines

    def bare(text: str) -> str:
        return "".join(text.strip().splitlines()[0].split())

    chinese, english = shown("--lang", "zh"), shown()
    assert bare(question.misconceptions[0].correction_zh) in chinese
    assert bare(question.model_answer_zh) in chinese and bare(question.model_answer_zh) not in english
    assert bare(question.model_answer) in english
