"""The correct-model replay (issue 12): its labels are sound, its model reads the answer it is sent,
and the replay goes through the LLM brain over real HTTP."""

from __future__ import annotations

import json

import pytest

from agent.brains.llm.prompts import assess_messages
from common.settings import load_settings
from evals.correct_model import (
    FIRST_PASS,
    SECOND_PASS,
    CorrectModel,
    QuoteLabelError,
    agreement,
    label_depths,
    load_quotes,
    run,
)
from evals.gold import load_gold
from knowledge.bank import load_bank


@pytest.fixture(scope="module")
def bank():
    return load_bank()


@pytest.fixture(scope="module")
def gold(bank):
    transcripts, problems = load_gold([], bank)
    assert not problems
    return transcripts


@pytest.fixture(scope="module")
def heldout(gold):
    return [t for t in gold if t.split == "heldout"]


@pytest.mark.parametrize("labels", [FIRST_PASS, SECOND_PASS], ids=["first", "second"])
def test_every_gold_turn_is_labelled_with_verbatim_quotes_of_its_own_points(labels, bank, gold):
    shown = load_quotes(labels)
    turns = {f"{t.id}#{i}": turn for t in gold for i, turn in enumerate(t.turns)}
    assert set(shown) == set(turns)
    for turn_id, pairs in shown.items():
        turn = turns[turn_id]
        points = {kp.id for kp in bank[turn.question].key_points}
        for kp, quote in pairs:
            assert kp in points, f"{turn_id}: {kp} is not a key point of {turn.question}"
            assert quote and quote in turn.answer, f"{turn_id}: the quote for {kp} is not in the answer"


def test_a_broken_label_line_is_named(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"turn": "a#0", "shown": []}\n{"turn": "a#1", "shown": [{"quote": "x"}]}\n', encoding="utf-8")
    with pytest.raises(QuoteLabelError, match=r"labels\.jsonl:2: .*key_point"):
        load_quotes(path)


def test_the_model_answers_each_request_with_the_verdict_of_the_answer_inside_it(bank, heldout):
    shown = load_quotes(FIRST_PASS)
    model = CorrectModel(heldout, bank, shown)
    for transcript in heldout[:6]:
        for index, turn in enumerate(transcript.turns):
            question = bank[turn.question]
            body = {"messages": assess_messages(question, turn.answer, None)}
            reply = json.loads(model(body).content)
            assert reply["depth"] == turn.gold.depth
            expected = [{"id": kp, "status": "covered", "quote": q} for kp, q in shown[f"{transcript.id}#{index}"]]
            assert reply["key_points"] == expected
    assert model({"stream": True, "messages": []}) is None  # follow-ups are not its business
    assert model({"messages": [{"role": "user", "content": "an answer nobody gave"}]}) is None


def test_the_model_knows_an_answer_as_the_interviewer_heard_it(bank, heldout):
    """The brain is sent the reply as heard: its opening talk dropped, one sentence per line."""
    from agent.text import sentences

    model = CorrectModel(heldout, bank, load_quotes(FIRST_PASS))
    checked = 0
    for transcript in heldout:
        for turn in transcript.turns:
            said = sentences(turn.answer)
            if len(said) < 3:
                continue
            heard = "\n".join(said[1:])
            body = {"messages": assess_messages(bank[turn.question], heard, None)}
            assert json.loads(model(body).content)["depth"] == turn.gold.depth, turn.answer[:80]
            checked += 1
    assert checked >= 20


def test_agreement_counts_every_point_of_every_turn():
    points_of = {"t#0": ["a", "b", "c"], "t#1": ["a", "b"]}
    first = {"t#0": [("a", "q")], "t#1": [("b", "q")]}
    second = {"t#0": [("a", "q"), ("c", "q")], "t#1": [("b", "q")]}
    result = agreement(first, second, points_of)
    assert result["pairs"] == 5 and result["agreement"] == 0.8
    assert (result["first_only"], result["second_only"]) == (0, 1)
    assert agreement(first, first, points_of)["kappa"] == 1.0


def test_label_depths_build_on_earlier_turns_of_the_question(bank, heldout):
    shown = load_quotes(FIRST_PASS)
    depths = label_depths(heldout, bank, shown)
    for transcript in heldout:
        previous = None
        for index, turn in enumerate(transcript.turns):
            depth = depths[f"{transcript.id}#{index}"]
            if previous is not None and turn.asked is not None:
                assert depth >= previous, f"{transcript.id}#{index}: evidence was forgotten"
            previous = depth
        assert all(0 <= depths[f"{transcript.id}#{i}"] <= 4 for i in range(len(transcript.turns)))


def test_the_replay_goes_through_the_llm_brain_over_http(bank, heldout):
    """Two transcripts end to end against the local server: every turn is judged by the model (no
    offline fallback), and the figures are those of the turns replayed."""
    few = heldout[:2]
    result = run(few, bank, load_settings(), load_quotes(FIRST_PASS))
    assert result["turns"] == sum(len(t.turns) for t in few)
    assert result["fell_back"] == 0 and result["unlabelled_turns"] == []
    kept = sum(
        d["turn"] not in {x["turn"] for x in result["differs"]}
        for d in [{"turn": f"{t.id}#{i}"} for t in few for i in range(len(t.turns))]
    )
    assert result["kept"] == round(kept / result["turns"], 3)
    assert result["below_gold"] + result["above_gold"] == len(result["differs"])
