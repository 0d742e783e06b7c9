"""The session report: what it sends the candidate to study."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from rich.console import Console

from agent.interview.report import build_report, to_markdown
from agent.labels import labels
from agent.learner.drill import DrillItem, drill_of
from agent.learner.profile import Profile
from agent.learner.recording import attempts_in
from agent.planning import PlanRequest
from agent.state import Evidence, MisconceptionHit, QuestionSummary
from tui.screens.report import questions_table
from tui.screens.review import review_markdown


def summary(question: str, missed: list[str]) -> QuestionSummary:
    return QuestionSummary(
        question=question,
        depth=0,
        reason="",
        covered=[],
        missed=missed,
        misconceptions=[],
        model_answer="",
        references=[],
    )


def study(request: PlanRequest, missed: list[str], bank, retriever) -> list[str]:
    state = {"session_id": "s", "status": "finished", "request": request, "summaries": [summary("algo-07", missed)]}
    return [item.key_point for item in build_report(state, bank, retriever).study_next]


def test_a_drill_does_not_send_the_candidate_to_study_points_shown_in_earlier_drills(bank, notes_retriever):
    points = sorted(bank["algo-07"].key_points, key=lambda kp: kp.level)
    shown_earlier, gap = points[0].id, [kp.id for kp in points[1:]]
    item = DrillItem(question="algo-07", why="due", opener=gap[0], gap=gap, due=None, mastery=None, last_depth=1)
    drill = drill_of([item]).request
    assert drill.shown_before(bank["algo-07"]) == [shown_earlier]
    everything = [kp.id for kp in points]  # the session itself showed nothing
    assert study(drill, everything, bank, notes_retriever) == gap[:2]
    # the same summary in an interview: its lowest missed points come first, the earlier one among them
    assert study(PlanRequest(ids=["algo-07"]), everything, bank, notes_retriever) == everything[:2]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_and_review_say_why_progress_counts_a_question_below_its_depth(
    bank, notes_retriever, tmp_path, lang
):
    """The review said depth 4/4 while the Drill list, the library and `progress` said 2/4, with
    nothing to explain it (a user trial): what a hint led to is counted Hard at best, and so is a
    question on which a wrong claim was stated, even one put right later (blind trial 36), which the
    reason then names beside the "you put it right later" (blind trial 41)."""
    points = bank["algo-03"].key_points
    hinted = [Evidence(key_point=kp.id, level=kp.level, quote="q", hinted=kp.level == 4) for kp in points]
    unhinted = [e.model_copy(update={"hinted": False}) for e in hinted]
    wrong = bank["algo-03"].misconceptions[0]
    held = MisconceptionHit(misconception=wrong.id, quote="w", correction="c")
    put_right = held.model_copy(update={"put_right": "r"})
    capping = ("hint_capped", "wrong_claim_capped", "wrong_claim_put_right_capped")
    cases = dict(zip(capping, [(hinted, []), (unhinted, [held]), (unhinted, [put_right])], strict=True))
    cases[None] = (unhinted, [])
    say = labels(lang)
    texts = {}
    for why, (covered, hits) in cases.items():
        update = {"depth": 4, "covered": covered, "misconceptions": hits}
        question_summary = summary("algo-03", []).model_copy(update=update)
        state = {"session_id": str(why), "status": "finished", "lang": lang, "summaries": [question_summary]}
        profile = Profile(tmp_path / f"{why}.sqlite")
        profile.record(attempts_in(state | {"plan": ["algo-03"]}, lambda _: datetime(2026, 12, 1, tzinfo=UTC)), bank)
        rated = profile.history().attempts[0].rated_depth
        report = build_report(state, bank, notes_retriever)
        texts[why] = (
            rated,
            to_markdown(report, bank),
            review_markdown(question_summary, bank["algo-03"], lang),
            screen_text(questions_table(report, say)),
        )
    # what each label says after the depth: its reason
    capped = [say(label, depth=0).split("0/4")[1] for label in capping]
    for label in capping:
        rated, report, review, table = texts[label]
        assert rated < 4
        said = say(label, depth=rated)
        assert said in report and said in review
        assert said in table, "the report screen's table says it too, beside the 4/4"
        assert not any(c in report for c in capped if c not in said), "one reason, the one that holds"
    rated, report, review, table = texts[None]
    assert rated == 4
    assert not any(c in text for c in capped for text in (report, review, table))


def screen_text(table) -> str:
    """The table as a wide terminal shows it, each row's lines joined (a reason wraps over several)."""
    console = Console(width=400, record=True, file=io.StringIO())
    console.print(table)
    return " ".join(line.strip() for line in console.export_text().splitlines())


def _report_and_review(qid: str, hits: list[MisconceptionHit], bank, notes_retriever) -> tuple[str, str]:
    """The exported report and the TUI review of a one-question session holding these wrong claims."""
    question_summary = summary(qid, []).model_copy(update={"misconceptions": hits})
    state = {"session_id": "s", "status": "finished", "lang": "en", "summaries": [question_summary]}
    return (
        to_markdown(build_report(state, bank, notes_retriever), bank),
        review_markdown(question_summary, bank[qid], "en"),
    )


def test_one_sentence_with_two_wrong_owners_is_listed_once_with_both_corrections(bank, notes_retriever):
    """A trial's report listed "SGLang 用的是 PagedAttention……vLLM 是 RadixAttention" twice, once per
    corrected owner: it is one confusion, as the scorer counts it."""
    swap = "SGLang 用的是 PagedAttention 管理 KV cache，vLLM 是 RadixAttention。"
    hits = [
        MisconceptionHit(misconception="m-a", quote=swap, correction="PagedAttention is vLLM's."),
        MisconceptionHit(misconception="m-b", quote=swap, correction="RadixAttention is SGLang's."),
        MisconceptionHit(
            misconception="m-c", quote="Another wrong sentence.", correction="Not so.", put_right="I take it back."
        ),
    ]
    for text in _report_and_review("infra-05", hits, bank, notes_retriever):
        assert text.count("PagedAttention 管理 KV cache") == 1, text
        assert "PagedAttention is vLLM's." in text and "RadixAttention is SGLang's." in text
        assert "Another wrong sentence." in text and "Not so." in text
        assert text.count("You put it right later: “I take it back.”") == 1


def test_both_roles_turned_round_in_one_sentence_are_corrected_once_and_put_right_once(bank, notes_retriever):
    """Blind trial 36: R3's record and replay sides swapped in one sentence and corrected later; the
    report printed the role group's one correction and the note that it was put right twice each."""
    swap = "R3 records the routing in the training forward pass and replays it inside the inference engine."
    right = "R3 records the routing in the inference engine and replays it in the training forward pass."
    hits = [
        MisconceptionHit(misconception=m, quote=swap, correction="It is the other way round.", put_right=right)
        for m in ("m-recorded", "m-replayed")
    ]
    for text in _report_and_review("algo-11", hits, bank, notes_retriever):
        assert text.count("It is the other way round.") == 1, text
        assert text.count("replays it in the training forward pass") == 1, text


def test_a_drill_report_counts_earlier_points_toward_the_parts_and_lists_them_apart(bank, notes_retriever):
    """A trial's drill report said "加上之前答到的 5 个" and still marked "✗ vLLM 和 SGLang 有什么区别"
    over two points shown before, listing them under 还没答到的: the exported report now does what
    the review does."""
    question = bank["algo-07"]
    part = question.parts[-1]
    earlier = [kp.id for kp in question.points_of(part.id)]
    gap = [kp.id for kp in question.key_points if kp.id not in earlier]
    item = DrillItem(question="algo-07", why="due", opener=gap[0], gap=gap, due=None, mastery=None, last_depth=1)
    drill = drill_of([item]).request
    assert drill.shown_before(question) == earlier
    drilled = summary("algo-07", [kp.id for kp in question.key_points])
    state = {"session_id": "d", "status": "finished", "request": drill, "summaries": [drilled]}
    markdown = to_markdown(build_report(state, bank, notes_retriever), bank)
    assert f"- ✓ {part.en}: {len(earlier)} of {len(earlier)} key points" in markdown
    not_shown, before = markdown.split("Not shown:")[1].split("Shown before:")
    assert all(question.key_point(kp).statement in before for kp in earlier)
    assert not any(question.key_point(kp).statement in not_shown for kp in earlier)
    assert all(question.key_point(kp).statement in not_shown for kp in gap)
