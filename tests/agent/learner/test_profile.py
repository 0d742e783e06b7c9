"""The candidate profile: the depth-to-rating mapping, FSRS cards, mastery, drills that close a gap,
reset, a damaged file, and a profile rebuilt from the session store matching the incremental one."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from agent_helpers import answer_for_levels, explain
from fsrs import Rating
from learner_records import attempt

from agent.learner.profile import (
    Profile,
    ProfileError,
    mastery,
    profile_path,
    rating_for,
    system_clock,
)
from agent.learner.recording import rebuild
from agent.planning import PlanRequest
from agent.state import CandidateAction

T0 = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture
def profile(tmp_path) -> Profile:
    return Profile(tmp_path / "profile.sqlite")


@pytest.mark.parametrize(
    ("depth", "rating"), [(0, Rating.Again), (1, Rating.Again), (2, Rating.Hard), (3, Rating.Good), (4, Rating.Easy)]
)
def test_depth_maps_to_the_documented_rating(depth, rating):
    assert rating_for(depth) is rating


def test_a_deeper_first_answer_is_scheduled_further_out(profile, bank):
    """Each question is its own card; one first review per depth at the same moment."""
    questions = ["algo-01", "algo-02", "algo-03", "algo-04", "algo-05"]
    profile.record([attempt(qid, T0, depth, session=f"s{depth}") for depth, qid in enumerate(questions)], bank)
    cards = profile.history().cards
    due = [cards[qid].due for qid in questions]
    stability = [cards[qid].stability for qid in questions]
    assert due[0] == due[1] and stability[0] == stability[1], "depth 0 and 1 are both Again"
    assert stability[1] < stability[2] < stability[3] < stability[4]
    assert due[1] <= due[2] < due[3] < due[4]
    assert all(d >= T0 + timedelta(days=1) for d in due), "no card comes back within minutes"
    assert all(d.tzinfo is not None and d.utcoffset() == timedelta(0) for d in due)


def test_a_question_shown_only_with_a_hint_is_rated_hard_at_best(profile, bank):
    from dataclasses import replace

    from agent.learner.recording import attempts_in
    from agent.state import Evidence, QuestionSummary

    expert = [kp.id for kp in bank["algo-01"].key_points]
    profile.record(
        [
            replace(attempt("algo-01", T0, 4, expert), hinted=True),
            attempt("algo-02", T0, 4, [kp.id for kp in bank["algo-02"].key_points], session="s2"),
        ],
        bank,
    )
    by_question = {r.attempt.question: r for r in profile.history().attempts}
    assert (by_question["algo-01"].rated_depth, by_question["algo-01"].rating) == (2, Rating.Hard)
    assert by_question["algo-02"].rating is Rating.Easy
    # A session's summary says which evidence came after a hint; the attempt carries it.
    shown = [
        Evidence(key_point=kp.id, level=kp.level, quote="q", hinted=kp.level == 4) for kp in bank["algo-03"].key_points
    ]
    summary = QuestionSummary(
        question="algo-03",
        depth=4,
        reason="",
        covered=shown,
        missed=[],
        misconceptions=[],
        model_answer="",
        references=[],
    )
    state = {"session_id": "s3", "plan": ["algo-03"], "summaries": [summary]}
    [made] = attempts_in(state, lambda _: T0)
    assert made.hinted is True


def test_a_question_with_a_wrong_claim_is_rated_hard_at_best_even_put_right(profile, bank):
    """Later answers can bring the depth back to 4, but a claim believed until the challenge brings
    the question back as soon as a hint would; only one left standing also costs mastery."""
    from agent.learner.recording import attempts_in
    from agent.state import Evidence, MisconceptionHit, QuestionSummary

    def summary(question: str, wrong: list[str | None]) -> QuestionSummary:
        return QuestionSummary(
            question=question,
            depth=4,
            reason="",
            covered=[Evidence(key_point=kp.id, level=kp.level, quote="q") for kp in bank[question].key_points],
            missed=[],
            misconceptions=[
                MisconceptionHit(misconception=m.id, quote="w", correction="c", put_right=right)
                for m, right in zip(bank[question].misconceptions, wrong, strict=False)
            ],
            model_answer="",
            references=[],
        )

    state = {
        "session_id": "s1",
        "plan": ["algo-07", "algo-08", "algo-10"],
        "summaries": [
            summary("algo-07", ["Sorry, I had it backwards: ..."]),
            summary("algo-08", [None]),
            summary("algo-10", []),
        ],
    }
    corrected, standing, clean = attempts_in(state, lambda _: T0)
    assert [a.stated_wrong for a in (corrected, standing, clean)] == [True, True, False]
    assert corrected.misconceptions == {} and standing.misconceptions != {}
    profile.record([corrected, standing, clean], bank)
    rated = {r.attempt.question: (r.rated_depth, r.rating) for r in profile.history().attempts}
    assert rated == {"algo-07": (2, Rating.Hard), "algo-08": (2, Rating.Hard), "algo-10": (4, Rating.Easy)}
    by_topic = mastery(profile.history(), bank, T0)
    assert by_topic["ppo"] == pytest.approx(2 / 4), "algo-07 alone: rated 2, its wrong claim put right"
    assert by_topic["grpo-variants"] == pytest.approx(2 / 4 - 0.15), "algo-07 and algo-08, one claim standing"


def test_recording_the_same_question_of_a_session_twice_counts_once(profile, bank):
    assert profile.record([attempt("algo-07", T0, 0)], bank) == 1
    assert profile.record([attempt("algo-07", T0 + timedelta(hours=1), 4)], bank) == 0
    history = profile.history()
    assert [r.attempt.depth for r in history.attempts] == [0]


def test_system_clock_reads_the_testing_hook(monkeypatch):
    monkeypatch.setenv("RL_INTERVIEW_NOW", "2026-12-01T00:00:00Z")
    assert system_clock() == T0
    monkeypatch.setenv("RL_INTERVIEW_NOW", "2026-12-01T08:00:00+08:00")
    assert system_clock() == T0
    monkeypatch.setenv("RL_INTERVIEW_NOW", "next tuesday")
    with pytest.raises(ProfileError, match="RL_INTERVIEW_NOW"):
        system_clock()
    monkeypatch.delenv("RL_INTERVIEW_NOW")
    assert abs(system_clock() - datetime.now(UTC)) < timedelta(minutes=1)


def test_mastery_weighs_recent_answers_more(profile, bank):
    """algo-02 is the only question on information-theory: an old strong answer then a weak one
    today leaves the topic weaker than a weak answer followed by a strong one."""
    now = T0 + timedelta(days=14)
    profile.record([attempt("algo-02", T0, 4, session="a"), attempt("algo-02", now, 0, session="b")], bank)
    declining = mastery(profile.history(), bank, now)["information-theory"]
    other = Profile(profile.path.with_name("other.sqlite"))
    other.record([attempt("algo-02", T0, 0, session="a"), attempt("algo-02", now, 4, session="b")], bank)
    improving = mastery(other.history(), bank, now)["information-theory"]
    assert declining < 0.5 < improving
    # The documented half-life: an answer 14 days old weighs half as much as today's.
    assert declining == pytest.approx((0.5 * 1.0 + 1.0 * 0.0) / 1.5)
    assert improving == pytest.approx((0.5 * 0.0 + 1.0 * 1.0) / 1.5)


def test_a_recent_misconception_counts_against_and_fades(profile, bank):
    wrong = bank["algo-02"].misconceptions[0].id
    profile.record([attempt("algo-02", T0, 2, session="a", wrong=[wrong])], bank)
    clean = Profile(profile.path.with_name("clean.sqlite"))
    clean.record([attempt("algo-02", T0, 2, session="a")], bank)
    assert (
        mastery(profile.history(), bank, T0)["information-theory"]
        < mastery(clean.history(), bank, T0)["information-theory"]
    )
    later = T0 + timedelta(days=60)
    gap_now = (
        mastery(clean.history(), bank, T0)["information-theory"]
        - mastery(profile.history(), bank, T0)["information-theory"]
    )
    gap_later = (
        mastery(clean.history(), bank, later)["information-theory"]
        - mastery(profile.history(), bank, later)["information-theory"]
    )
    assert 0 < gap_later < gap_now


def test_one_sentence_that_swaps_two_owners_counts_once_against_mastery(profile, bank):
    """A trial's "SGLang 用的是 PagedAttention，vLLM 是 RadixAttention" was two wrong-owner hits, and
    its topic lost 0.3 where the scorer counts one confusion; two sentences still cost twice."""
    swap = "SGLang 用的是 PagedAttention 管理 KV cache，vLLM 是 RadixAttention。"
    ids = ["vllm-and-sglang-differ-a", "vllm-and-sglang-differ-b"]

    def topic_mastery(name: str, quotes: dict[str, str]) -> float:
        done = attempt("infra-05", T0, 3, session=name)
        records = Profile(profile.path.with_name(f"{name}.sqlite"))
        records.record([dataclasses.replace(done, misconceptions=quotes)], bank)
        return mastery(records.history(), bank, T0)[bank["infra-05"].topics[0]]

    clean = topic_mastery("clean", {})
    one_sentence = topic_mastery("one", dict.fromkeys(ids, swap))
    two_sentences = topic_mastery("two", {ids[0]: swap, ids[1]: "Another wrong sentence."})
    assert clean - one_sentence == pytest.approx(0.15)
    assert clean - two_sentences == pytest.approx(0.30)


def test_mastery_ignores_answers_after_now(profile, bank):
    profile.record([attempt("algo-02", T0, 4)], bank)
    assert mastery(profile.history(), bank, T0 - timedelta(days=1)) == {}


def test_a_drill_that_closes_its_gap_is_rated_on_everything_shown(profile, bank):
    question = bank["algo-07"]
    level_1 = [kp.id for kp in question.key_points if kp.level == 1]
    level_2 = [kp.id for kp in question.key_points if kp.level == 2]
    profile.record([attempt("algo-07", T0, 1, level_1, session="interview")], bank)
    history = profile.history()
    assert history.gap(question)[0] == level_2[0], "the gap starts at the lowest level not shown"
    # The drill opens on the level-2 point; the answer shows it alone (depth 0 or 1 on its own).
    profile.record(
        [attempt("algo-07", T0 + timedelta(days=2), 0, level_2[:1], session="drill", opener=level_2[0])], bank
    )
    history = profile.history()
    drill = history.attempts[-1]
    assert drill.rated_depth == 2 and drill.rating is Rating.Hard
    assert history.known("algo-07") == set(level_1) | {level_2[0]}


def test_a_drill_that_misses_its_opener_is_rated_on_its_own_depth(profile, bank):
    question = bank["algo-07"]
    level_1 = [kp.id for kp in question.key_points if kp.level == 1]
    opener = next(kp.id for kp in question.key_points if kp.level == 2)
    profile.record(
        [
            attempt("algo-07", T0, 1, level_1, session="interview"),
            attempt("algo-07", T0 + timedelta(days=2), 0, session="drill", opener=opener),
        ],
        bank,
    )
    history = profile.history()
    assert history.attempts[-1].rating is Rating.Again
    assert history.gap(question)[0] == opener, "still missing: the next drill opens on it again"


def test_a_full_question_measures_afresh(profile, bank):
    question = bank["algo-07"]
    everything = [kp.id for kp in question.key_points]
    profile.record(
        [
            attempt("algo-07", T0, 4, everything, session="a"),
            attempt("algo-07", T0 + timedelta(days=9), 0, session="b"),
        ],
        bank,
    )
    assert profile.history().gap(question) == [kp.id for kp in sorted(question.key_points, key=lambda k: k.level)]


def test_reset_erases_and_forgets_the_sessions_it_saw(profile, bank):
    profile.record([attempt("algo-07", T0, 0, session="old")], bank)
    profile.reset(["old"])
    assert profile.history().attempts == [] and profile.history().cards == {}
    assert profile.record([attempt("algo-08", T0, 0, session="old")], bank) == 0
    assert profile.record([attempt("algo-08", T0, 0, session="new")], bank) == 1


def test_a_damaged_profile_names_the_file_and_the_fix(tmp_path):
    path = tmp_path / "profile.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ProfileError) as caught:
        Profile(path).history()
    assert str(path) in str(caught.value) and "profile rebuild" in str(caught.value)


# --- rebuilt from the session store ----------------------------------------------------------


async def play(svc, request: PlanRequest, answer_for, max_follow_ups: int = 3) -> str:
    interview = svc.interview()
    async for _ in interview.start(request, "en", max_follow_ups):
        pass
    while interview.waiting is not None:
        async for _ in interview.submit(CandidateAction.answer, answer_for(interview.waiting)):
            pass
    return interview.session_id


@pytest.mark.slow
async def test_a_rebuilt_profile_equals_the_incremental_one(agent_home, notes_retriever, bank, monkeypatch):
    from agent.app import open_services
    from common.settings import load_settings

    settings = load_settings()
    weak = {"algo-07", "algo-08"}

    def answer(waiting):
        question = bank[waiting.question]
        return "I don't know" if question.id in weak else answer_for_levels(question, 1, 2, 3, 4)

    monkeypatch.setenv("RL_INTERVIEW_NOW", "2026-12-01T00:00:00Z")
    async with open_services(settings, retriever=notes_retriever) as svc:
        await play(svc, PlanRequest(ids=["algo-07", "infra-01", "algo-08"]), answer)
    monkeypatch.setenv("RL_INTERVIEW_NOW", "2026-12-03T09:30:00Z")
    opener = min(bank["algo-07"].key_points, key=lambda kp: kp.level)
    async with open_services(settings, retriever=notes_retriever) as svc:
        await play(
            svc,
            PlanRequest(ids=["algo-07"], openers={"algo-07": opener.id}),
            lambda waiting: explain(opener.cues.en[0]),
            max_follow_ups=1,
        )
        incremental = svc.profile.history()
        assert [(r.attempt.question, r.attempt.at) for r in incremental.attempts] == [
            ("algo-07", T0),
            ("infra-01", T0),
            ("algo-08", T0),
            ("algo-07", datetime(2026, 12, 3, 9, 30, tzinfo=UTC)),
        ]
        assert incremental.attempts[-1].attempt.opener == opener.id
        assert await rebuild(svc.profile, svc) == 4
        assert svc.profile.history().as_dict() == incremental.as_dict()

        # From nothing (a new file), the same answers and depths come back, at the sessions' start times.
        fresh = Profile(profile_path(settings).with_name("fresh.sqlite"))
        assert await rebuild(fresh, svc) == 4
        rebuilt = fresh.history().as_dict()
        assert [{k: v for k, v in a.items() if k != "at"} for a in rebuilt["attempts"]] == [
            {k: v for k, v in a.items() if k != "at"} for a in incremental.as_dict()["attempts"]
        ]
