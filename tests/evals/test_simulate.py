"""Self-play: whole sessions by personas keep every interviewer check and order the personas; a
careless interviewer fails the checks it breaks."""

import asyncio

from agent.brains.brain import OfflineBrain
from agent.interview.retrieval import NotesRetriever
from evals.personas import PERSONAS
from evals.session_checks import CHECKS
from evals.simulate import play, render, simulate
from knowledge.bank import load_bank


def test_simulated_sessions_pass_every_interviewer_check_and_order_strong_average_weak():
    result = simulate(1, load_bank(), OfflineBrain(), NotesRetriever())
    assert result["sessions"] == len(PERSONAS)
    assert result["violations"] == []
    checked = {name: figure for name, figure in result["checks"].items() if figure["of"]}
    assert len(checked) >= 15 and set(result["checks"]) == set(CHECKS)
    assert all(figure["rate"] == 1.0 for figure in checked.values()), checked
    assert result["ordering_rate"] == 1.0
    depths = result["average_depth"]
    assert depths["adversarial"] <= 1 and depths["confidently-wrong"] <= 1 and depths["rambling"] <= 1
    text = render(result)
    assert all(name in text for name in checked)


def test_a_session_records_exactly_the_answers_the_persona_gave():
    run = asyncio.run(play("average", 7, load_bank(), OfflineBrain(), NotesRetriever(), questions=2))
    assert run.violations == []
    assert len(run.depths) == 2 and all(0 <= d <= 4 for d in run.depths)


class ParrotBrain(OfflineBrain):
    """Judges like the offline brain, but every line is the same and quotes words nobody said."""

    async def write(self, request, on_token=None) -> str:
        return "You said “words nobody said at all”. Go on?"


def test_an_interviewer_that_repeats_itself_and_misquotes_fails_those_checks():
    run = asyncio.run(play("average", 3, load_bank(), ParrotBrain(), NotesRetriever(), questions=2))
    failed = {v.split(":")[0] for v in run.violations}
    assert {"no two lines in a row open alike", "quotes are the candidate's words"} <= failed
    assert run.checks["no two lines in a row open alike"][0] < run.checks["no two lines in a row open alike"][1]


def test_a_quote_check_tells_the_bank_quoting_a_term_from_words_the_candidate_never_said():
    from evals.session_checks import SessionRun, inspect_quotes

    question = load_bank()["infra-15"]
    probe = question.key_point("design-rationale").probe.zh  # quotes “薄胶水层”, a term of ours
    run = SessionRun("protester-zh", 0, 0.0, [])
    inspect_quotes(run, question, probe, said="我觉得它很轻量。")
    assert run.violations == []
    inspect_quotes(run, question, "你说“它完全重写了 Megatron”。" + probe, said="我觉得它很轻量。")
    assert run.violations == ["quotes are the candidate's words: infra-15: '它完全重写了 Megatron'"]


def test_an_interviewer_that_closes_without_correcting_fails_that_check(monkeypatch):
    """A wrong claim in the last answer on a question must not be left standing as it closes."""
    name = "wrong claims left open are corrected at the close"
    # The first seed whose session closes a question on a wrong claim (which one does moves with the bank).
    for seed in range(3, 13):
        run = asyncio.run(play("confidently-wrong", seed, load_bank(), OfflineBrain(), NotesRetriever(), questions=3))
        if run.checks.get(name, (0, 0))[1] > 0:
            break
    assert run.checks[name][1] > 0 and run.checks[name][0] == run.checks[name][1], run.checks.get(name)
    monkeypatch.setattr("agent.interview.graph.closing_reply", lambda *args, **kwargs: None)
    silent = asyncio.run(play("confidently-wrong", seed, load_bank(), OfflineBrain(), NotesRetriever(), questions=3))
    assert silent.checks[name][0] < silent.checks[name][1]
