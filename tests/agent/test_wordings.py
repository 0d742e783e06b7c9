"""Fresh wordings: a question met before is asked in another wording than the last one seen, drawn
with the session's seed; the first meeting, --verbatim and a resumed session keep theirs."""

from __future__ import annotations

import functools

import pytest

import agent.app
from agent.planning import PlanRequest, choose_wordings
from agent.state import CandidateAction
from knowledge.bank import Bank
from knowledge.models import Bilingual


def with_wordings(bank: Bank, count: int = 2) -> Bank:
    """Every question with `count` extra wordings, whether or not the shipped bank has them yet."""
    return Bank(
        [
            q.model_copy(
                update={
                    "wordings": [
                        Bilingual(en=f"{q.prompt.en} (wording {i})", zh=f"{q.prompt.zh}（问法 {i}）")
                        for i in range(1, count + 1)
                    ]
                }
            )
            for q in bank.questions()
        ]
    )


@pytest.fixture
def worded(bank) -> Bank:
    return with_wordings(bank)


@pytest.fixture
def open_worded(worded, notes_retriever):
    """The interviewer the CLI builds, over the worded bank."""
    return functools.partial(agent.app.open_services, retriever=notes_retriever, bank=worded)


async def asked(open_worded, settings, request: PlanRequest, session_id: str, lang: str = "en") -> str:
    """Start a session and skip its one question; the text it was asked in."""
    async with open_worded(settings) as services:
        session = services.interview(session_id)
        first = [event async for event in session.start(request, lang, 3)][-1]
        async for _ in session.submit(CandidateAction.skip):
            pass
        return first.text


@pytest.fixture
def settings(agent_home):
    from common.settings import load_settings

    return load_settings()


def test_a_first_meeting_is_in_the_seed_wording_and_later_ones_avoid_the_last(worded):
    plan = ["algo-07", "infra-01"]
    assert choose_wordings(worded, plan, 1, {}) == {"algo-07": 0, "infra-01": 0}
    for seed in range(30):
        again = choose_wordings(worded, plan, seed, {"algo-07": 0, "infra-01": 2})
        assert again["algo-07"] in (1, 2) and again["infra-01"] in (0, 1)
        assert again == choose_wordings(worded, plan, seed, {"algo-07": 0, "infra-01": 2})
    spread = {choose_wordings(worded, ["algo-07"], seed, {"algo-07": 0})["algo-07"] for seed in range(30)}
    assert spread == {1, 2}, "the seed decides which of the other wordings comes"


def test_a_question_with_only_its_seed_wording_is_always_asked_in_it(bank):
    single = with_wordings(bank, count=0)
    assert all(choose_wordings(single, ["algo-07"], seed, {"algo-07": 0}) == {"algo-07": 0} for seed in range(10))


async def test_the_same_seed_asks_the_same_wording_and_the_next_session_another(
    worded, open_worded, settings, tmp_path, monkeypatch
):
    question = worded["algo-07"]
    wordings = [question.wording(i).en for i in range(3)]
    request = PlanRequest(ids=["algo-07"], seed=7)
    first = await asked(open_worded, settings, request, "s1")
    second = await asked(open_worded, settings, request, "s2")
    third = await asked(open_worded, settings, request, "s3")
    assert first == question.prompt.en, "the first meeting is in the seed wording"
    assert second in wordings and second != first
    assert third in wordings and third != second

    other_home = tmp_path / "other-home"
    monkeypatch.setenv("RL_INTERVIEW_HOME", str(other_home))
    from common.settings import load_settings

    elsewhere = load_settings()
    assert await asked(open_worded, elsewhere, request, "t1") == first
    assert await asked(open_worded, elsewhere, request, "t2") == second, "same seed, same history: same wording"


async def test_verbatim_always_asks_the_seed_wording(worded, open_worded, settings):
    request = PlanRequest(ids=["infra-01"], seed=3, verbatim=True)
    for session in ("v1", "v2", "v3"):
        assert await asked(open_worded, settings, request, session, lang="zh") == worded["infra-01"].prompt.zh


async def test_a_resumed_session_keeps_its_wording_and_the_review_shows_it(worded, open_worded, settings):
    await asked(open_worded, settings, PlanRequest(ids=["algo-07"], seed=1), "seen")
    async with open_worded(settings) as services:
        session = services.interview("later")
        first = [event async for event in session.start(PlanRequest(ids=["algo-07", "infra-01"], seed=1), "en", 3)][-1]
    chosen = first.text
    assert chosen != worded["algo-07"].prompt.en
    async with open_worded(settings) as services:
        resumed = services.interview("later")
        events = [event async for event in resumed.resume()]
        assert events[-1].text == chosen
        async for _ in resumed.submit(CandidateAction.skip):
            pass
        assert resumed.waiting.text == worded["infra-01"].prompt.en
        assert services.index.last_wordings()["algo-07"] == next(
            i for i in range(3) if worded["algo-07"].wording(i).en == chosen
        )
