"""Parts, hints and clarifications in the bank (issue 13): every shipped question lists its parts
and every key point names one, has a ladder of three hints in both languages that does not give its
statement away and does not open by rewording its probe, and every question can answer a clarifying
question. A bad part is located."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kb_helpers import dump_entry, entry, line_containing

from evals.session_checks import hint_gives_nothing_away
from knowledge.bank import load_bank, validate_bank

BANK = load_bank()


@pytest.mark.parametrize("qid", list(BANK))
def test_every_key_point_names_a_part_and_climbs_a_ladder_of_hints(qid):
    question = BANK[qid]
    assert question.parts, "the sub-questions of the seed question"
    assert [kp.part for kp in question.key_points if kp.part not in {p.id for p in question.parts}] == []
    for point in question.key_points:
        assert len(point.hints) == 3, point.id
        assert len({h.en for h in point.hints}) == 3 and len({h.zh for h in point.hints}) == 3
        for hint in point.hints:
            assert hint_gives_nothing_away(hint.en, point.statement), (point.id, hint.en)
        assert word_overlap(point.hints[0].en, point.probe.en) < REWORDING, (
            point.id,
            "the first hint rewords the probe",
        )
    assert question.clarifications, "an answer to at least one clarifying question"


REWORDING = 0.35
"""Shared words (Jaccard) from which a first hint is the probe said again: a stuck candidate got
"Is there one answer that holds for every framework?" after "Is that the universal choice?" and
learnt nothing (a blind trial, twenty-fourth session); the reworded hints shared 0.30-0.53."""


def word_overlap(a: str, b: str) -> float:
    words_a, words_b = (set(re.findall(r"[a-z0-9']+", text.lower())) for text in (a, b))
    return len(words_a & words_b) / len(words_a | words_b)


def test_a_key_point_naming_an_unknown_part_is_located(tmp_path: Path, valid_entry):
    parts = [
        {"id": "clipping", "en": "How clipping works", "zh": "裁剪如何工作"},
        {"id": "why-min", "en": "Why take the minimum", "zh": "为什么取最小值"},
    ]
    points = [dict(kp, part="clipping") for kp in valid_entry["key_points"]]
    points[1]["part"] = "no-such-part"
    points[2]["part"] = "why-min"
    folder = tmp_path / "bank"
    folder.mkdir()
    text = dump_entry(folder / "algo-07.yaml", entry(valid_entry, parts=parts, key_points=points))
    bank, problems = validate_bank(folder)
    assert len(bank) == 0
    [problem] = problems
    assert "'no-such-part' is not a part of the question" in problem.message
    assert problem.line == line_containing(text, "part: no-such-part")


def test_parts_must_each_be_answered_by_a_key_point(tmp_path: Path, valid_entry):
    parts = [
        {"id": "clipping", "en": "How clipping works", "zh": "裁剪如何工作"},
        {"id": "unanswered", "en": "Something else", "zh": "别的"},
    ]
    points = [dict(kp, part="clipping") for kp in valid_entry["key_points"]]
    folder = tmp_path / "bank"
    folder.mkdir()
    dump_entry(folder / "algo-07.yaml", entry(valid_entry, parts=parts, key_points=points))
    _, problems = validate_bank(folder)
    assert [p.message for p in problems] == ["field parts.1.id: no key point answers part 'unanswered'"]
    dump_entry(folder / "algo-07.yaml", entry(valid_entry, parts=parts[:1]))
    _, problems = validate_bank(folder)
    assert sum("names no part" in p.message for p in problems) == len(valid_entry["key_points"])
