"""The session report: what it sends the candidate to study."""

from __future__ import annotations

from agent.interview.report import build_report
from agent.learner.drill import DrillItem, drill_of
from agent.planning import PlanRequest
from agent.state import QuestionSummary


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
