"""The candidate's profile: every closed question of interviews and drills, what it showed and
missed, and one FSRS card per question (SQLite, WAL, at `$RL_INTERVIEW_HOME/profile.sqlite`).

It is fed as each question closes (`recording.ProfileRecorder`, an observer of the runner) and can be
rebuilt from the session checkpoints (`recording.rebuild`), which gives the same profile.

Rating. A question's depth maps to an FSRS rating: 0-1 Again (nothing beyond recall), 2 Hard
(the mechanism, not the why), 3 Good, 4 Easy; a question on which something was shown only after a
hint, or on which a wrong claim was stated (even one put right in a later answer), is rated Hard
at best (its rated depth is at most 2). The scheduler has no learning steps (an interview question is not
reviewed again within minutes: the first interval is already in days) and no fuzz (so a rebuild
reproduces the same due dates).

Drills. A drill opens a question with the probe of a key point missed last time. The key points
shown on a question accumulate over drills (a full interview question measures afresh); when the
drill shows the key point it opened with, without a misconception, the depth it is rated on is
what everything shown so far supports (`agent.judge.scoring.depth_with_earlier`, the depth the drill
itself reports); otherwise the drill's own depth.

Mastery of a topic, in [0, 1], over the attempts on its questions up to `now`:
    mastery = clamp(sum(w * depth / 4) / sum(w) - 0.15 * sum(w_m), 0, 1),  w = 0.5 ** (age_days / 14)
so an answer two weeks old weighs half as much as today's, and each wrong claim stated on the
topic takes off up to 0.15, fading at the same rate (a sentence stating two, such as a swap of two
owners, is one).

Time. Everything is UTC. Code that needs "now" takes a clock; `system_clock` reads
RL_INTERVIEW_NOW (an ISO time, a testing hook) when it is set.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fsrs import Card, Rating, Scheduler

from agent.judge.scoring import depth_with_earlier
from agent.state import HINTED_AT_BEST
from common.errors import InputError
from common.file_lock import file_lock
from knowledge.bank import Bank
from knowledge.models import Question

Clock = Callable[[], datetime]
NOW_VARIABLE = "RL_INTERVIEW_NOW"
HALF_LIFE_DAYS = 14.0
MISCONCEPTION_PENALTY = 0.15
RATINGS = {0: Rating.Again, 1: Rating.Again, 2: Rating.Hard, 3: Rating.Good, 4: Rating.Easy}
SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)

SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (
    session_id TEXT NOT NULL, question TEXT NOT NULL, position INTEGER NOT NULL, at TEXT NOT NULL,
    opener TEXT, depth INTEGER NOT NULL, rated_depth INTEGER NOT NULL, rating INTEGER NOT NULL,
    skipped INTEGER NOT NULL, PRIMARY KEY (session_id, question)
);
CREATE TABLE IF NOT EXISTS points (
    session_id TEXT NOT NULL, question TEXT NOT NULL, key_point TEXT NOT NULL, level INTEGER NOT NULL,
    shown INTEGER NOT NULL, quote TEXT, PRIMARY KEY (session_id, question, key_point)
);
CREATE TABLE IF NOT EXISTS misconceptions (
    session_id TEXT NOT NULL, question TEXT NOT NULL, misconception TEXT NOT NULL, quote TEXT NOT NULL,
    PRIMARY KEY (session_id, question, misconception)
);
CREATE TABLE IF NOT EXISTS cards (question TEXT PRIMARY KEY, card TEXT NOT NULL, due TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS forgotten (session_id TEXT PRIMARY KEY);
"""
TABLES = ("attempts", "points", "misconceptions", "cards")


class ProfileError(InputError):
    """The profile cannot be used; the message names the file and the fix."""


def system_clock() -> datetime:
    """Now, in UTC; RL_INTERVIEW_NOW (e.g. 2026-12-01T00:00:00Z) fixes it for tests and demos."""
    fixed = os.environ.get(NOW_VARIABLE)
    if not fixed:
        return datetime.now(UTC)
    try:
        return utc(datetime.fromisoformat(fixed))
    except ValueError:
        raise ProfileError(f"{NOW_VARIABLE}={fixed!r} is not an ISO time such as 2026-12-01T00:00:00Z") from None


def utc(moment: datetime) -> datetime:
    """A UTC datetime (a naive one is taken to be UTC already)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def rating_for(depth: int) -> Rating:
    return RATINGS[depth]


def profile_path(settings: Any) -> Path:
    return settings.home / "profile.sqlite"


@dataclass(frozen=True)
class Attempt:
    """One question closed in one session, as the session's summary has it."""

    session_id: str
    question: str
    position: int
    """Index of the question in its session's plan (orders attempts made at the same moment)."""
    at: datetime
    opener: str | None
    """The key point a drill opened with; None for a full question."""
    depth: int
    shown: dict[str, str]
    """Key point id -> the candidate's sentence that showed it."""
    misconceptions: dict[str, str]
    skipped: bool
    hinted: bool = False
    """Something was shown only after a hint."""
    stated_wrong: bool = False
    """A wrong claim was stated on the question, put right later or not: later answers can bring the
    depth back, but the claim was believed until the challenge."""


@dataclass(frozen=True)
class Recorded:
    attempt: Attempt
    rated_depth: int
    rating: Rating


@dataclass
class History:
    """Everything the profile holds, oldest attempt first."""

    attempts: list[Recorded] = field(default_factory=list)
    cards: dict[str, Card] = field(default_factory=dict)

    def of(self, question_id: str) -> list[Recorded]:
        return [r for r in self.attempts if r.attempt.question == question_id]

    def known(self, question_id: str) -> set[str]:
        """Key points shown on the question: a full question measures afresh, drills add to it."""
        known: set[str] = set()
        for r in self.of(question_id):
            known = known | set(r.attempt.shown) if r.attempt.opener else set(r.attempt.shown)
        return known

    def gap(self, question: Question) -> list[str]:
        """Key points not shown yet, lowest level first (the bank's order within a level)."""
        known = {question.current_id(kp) for kp in self.known(question.id)}  # saved under a former id
        return question.missed(known)

    def sessions(self) -> list[str]:
        return list(dict.fromkeys(r.attempt.session_id for r in self.attempts))

    def as_dict(self) -> dict[str, Any]:
        """Plain data, to compare profiles and to print them."""
        return {
            "attempts": [
                {
                    "session_id": r.attempt.session_id,
                    "question": r.attempt.question,
                    "at": _iso(r.attempt.at),
                    "opener": r.attempt.opener,
                    "depth": r.attempt.depth,
                    "rated_depth": r.rated_depth,
                    "rating": r.rating.name,
                    "shown": sorted(r.attempt.shown),
                    "skipped": r.attempt.skipped,
                    "misconceptions": sorted(r.attempt.misconceptions),
                }
                for r in self.attempts
            ],
            "cards": {qid: card.to_dict() for qid, card in sorted(self.cards.items())},
        }


def mastery(history: History, bank: Bank, now: datetime) -> dict[str, float]:
    """Per topic, from the attempts made up to `now` (formula in the module docstring)."""
    sums: dict[str, list[float]] = {}
    for r in history.attempts:
        age_days = (now - r.attempt.at).total_seconds() / 86_400
        if age_days < 0:
            continue
        weight = 0.5 ** (age_days / HALF_LIFE_DAYS)
        for topic in bank[r.attempt.question].topics:
            total = sums.setdefault(topic, [0.0, 0.0, 0.0])
            total[0] += weight * r.rated_depth / 4
            total[1] += weight
            # one sentence that swaps two owners is one confusion, as the scorer and the report count it
            total[2] += weight * MISCONCEPTION_PENALTY * len(set(r.attempt.misconceptions.values()))
    return {topic: min(1.0, max(0.0, score / weights - penalty)) for topic, (score, weights, penalty) in sums.items()}


def weakest_first(by_topic: dict[str, float]) -> list[tuple[str, float]]:
    """Topics by `mastery`, weakest first (ties by name): as Home, Drill and `rl-interview progress` list them."""
    return sorted(by_topic.items(), key=lambda kv: (kv[1], kv[0]))


def _iso(moment: datetime) -> str:
    return utc(moment).isoformat(timespec="microseconds")


def rated_depth(question: Question, attempt: Attempt, known: set[str]) -> int:
    """A drill that closed its gap is rated on everything shown so far; anything else on its own
    depth; either way no higher than Hard when something was shown only after a hint or a wrong
    claim was stated (the review comes back as soon as after a hint)."""
    rated = _unhinted_depth(question, attempt, known)
    return min(rated, HINTED_AT_BEST) if attempt.hinted or attempt.stated_wrong else rated


def _unhinted_depth(question: Question, attempt: Attempt, known: set[str]) -> int:
    if not attempt.opener or attempt.opener not in attempt.shown or attempt.misconceptions:
        return attempt.depth
    return depth_with_earlier(question, attempt.depth, attempt.shown, known)


class Profile:
    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # Two processes switching a new file to WAL together: one fails at once with "locked".
        with file_lock(path.with_name(path.name + ".lock")), self._db() as db:
            db.executescript(SCHEMA)

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """One transaction on a fresh connection; a damaged file becomes a ProfileError."""
        try:
            with closing(sqlite3.connect(self.path, timeout=30)) as db:
                db.execute("PRAGMA journal_mode=WAL")
                with db:  # commits, or rolls back on an error
                    yield db
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    def _damaged(self, exc: Exception) -> ProfileError:
        return ProfileError(
            f"the profile {self.path} cannot be used ({exc}); move it aside and run "
            "`rl-interview profile rebuild` to rebuild it from your sessions"
        )

    def history(self) -> History:
        with self._db() as db:
            return _load(db)

    def record(self, attempts: Iterable[Attempt], bank: Bank) -> int:
        """Add attempts not recorded yet (sessions forgotten by a reset are ignored); returns how many."""
        with self._db() as db:
            return _record(db, _load(db), attempts, bank)

    def replace(self, attempts: Iterable[Attempt], bank: Bank) -> int:
        """Erase every attempt and card, then record these (give them oldest first), in one transaction."""
        with self._db() as db:
            for table in TABLES:
                db.execute(f"DELETE FROM {table}")
            return _record(db, History(), attempts, bank)

    def forgotten(self) -> set[str]:
        with self._db() as db:
            return {row[0] for row in db.execute("SELECT session_id FROM forgotten")}

    def reset(self, sessions: Iterable[str]) -> None:
        """Erase everything, and forget these sessions for good (a rebuild will not bring them back)."""
        with self._db() as db:
            for table in TABLES:
                db.execute(f"DELETE FROM {table}")
            db.executemany("INSERT OR IGNORE INTO forgotten VALUES (?)", [(s,) for s in sessions])


def _load(db: sqlite3.Connection) -> History:
    shown: dict[tuple[str, str], dict[str, str]] = {}
    for session_id, question, key_point, quote in db.execute(
        "SELECT session_id, question, key_point, quote FROM points WHERE shown = 1 ORDER BY rowid"
    ):
        shown.setdefault((session_id, question), {})[key_point] = quote
    wrong: dict[tuple[str, str], dict[str, str]] = {}
    for session_id, question, misconception, quote in db.execute(
        "SELECT session_id, question, misconception, quote FROM misconceptions ORDER BY rowid"
    ):
        wrong.setdefault((session_id, question), {})[misconception] = quote
    history = History()
    for row in db.execute(
        "SELECT session_id, question, position, at, opener, depth, rated_depth, rating, skipped "
        "FROM attempts ORDER BY at, rowid"
    ):
        key = (row[0], row[1])
        attempt = Attempt(
            session_id=row[0],
            question=row[1],
            position=row[2],
            at=datetime.fromisoformat(row[3]),
            opener=row[4],
            depth=row[5],
            shown=shown.get(key, {}),
            misconceptions=wrong.get(key, {}),
            skipped=bool(row[8]),
        )
        history.attempts.append(Recorded(attempt, row[6], Rating(row[7])))
    history.cards = {qid: Card.from_json(card) for qid, card in db.execute("SELECT question, card FROM cards")}
    return history


def _record(db: sqlite3.Connection, history: History, attempts: Iterable[Attempt], bank: Bank) -> int:
    done = {(r.attempt.session_id, r.attempt.question) for r in history.attempts}
    forgotten = {row[0] for row in db.execute("SELECT session_id FROM forgotten")}
    added = 0
    for attempt in attempts:
        if (attempt.session_id, attempt.question) in done or attempt.session_id in forgotten:
            continue
        question = bank[attempt.question]
        rated = rated_depth(question, attempt, history.known(question.id))
        rating = rating_for(rated)
        db.execute(
            "INSERT INTO attempts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                attempt.session_id,
                attempt.question,
                attempt.position,
                _iso(attempt.at),
                attempt.opener,
                attempt.depth,
                rated,
                int(rating),
                int(attempt.skipped),
            ),
        )
        db.executemany(
            "INSERT INTO points VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    attempt.session_id,
                    attempt.question,
                    kp.id,
                    kp.level,
                    int(kp.id in attempt.shown),
                    attempt.shown.get(kp.id),
                )
                for kp in question.key_points
            ],
        )
        db.executemany(
            "INSERT INTO misconceptions VALUES (?, ?, ?, ?)",
            [(attempt.session_id, attempt.question, mid, quote) for mid, quote in attempt.misconceptions.items()],
        )
        card = history.cards.get(question.id) or Card(card_id=zlib.crc32(question.id.encode()), due=utc(attempt.at))
        card, _ = SCHEDULER.review_card(card, rating, utc(attempt.at))
        db.execute("INSERT OR REPLACE INTO cards VALUES (?, ?, ?)", (question.id, card.to_json(), _iso(card.due)))
        history.attempts.append(Recorded(attempt, rated, rating))
        history.cards[question.id] = card
        done.add((attempt.session_id, attempt.question))
        added += 1
    return added
