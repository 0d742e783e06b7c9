"""The session index and the answer inbox (SQLite, WAL).

The inbox is why no answer is ever lost: a front end writes the candidate's answer here, committed
to disk, before handing it to the graph. If the process dies before the graph's checkpoint holds the
answer, resuming finds it here and submits it.
"""

from __future__ import annotations

import builtins
import json
import os
import socket
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from agent.planning import Kind
from common.errors import InputError
from common.file_lock import file_lock

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, started TEXT NOT NULL, updated TEXT NOT NULL, status TEXT NOT NULL,
    plan TEXT NOT NULL, lang TEXT NOT NULL, brain TEXT NOT NULL, average_depth REAL
);
CREATE TABLE IF NOT EXISTS answers (
    session_id TEXT NOT NULL, turn INTEGER NOT NULL, action TEXT NOT NULL, text TEXT NOT NULL,
    saved_at TEXT NOT NULL, PRIMARY KEY (session_id, turn)
);
CREATE TABLE IF NOT EXISTS leases (
    session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,
    renewed TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS drafts (
    session_id TEXT PRIMARY KEY, turn INTEGER NOT NULL, text TEXT NOT NULL, saved_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS time_spent (session_id TEXT PRIMARY KEY, seconds INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS wordings (
    session_id TEXT NOT NULL, question TEXT NOT NULL, wording INTEGER NOT NULL, asked_at TEXT NOT NULL,
    PRIMARY KEY (session_id, question)
);
CREATE TABLE IF NOT EXISTS kinds (session_id TEXT PRIMARY KEY, kind TEXT NOT NULL);
"""
# What a later release adds to a session goes into a table of its own, as `drafts`, `time_spent`,
# `wordings` and `kinds` did: a file an earlier release wrote gets the table on opening, and an
# earlier release still inserts its rows as before (a column added to `sessions` would break its
# `INSERT INTO sessions VALUES`).


ENDED = ("finished", "ended")
"""The statuses of a session that is over (`ended`: the candidate ended it early)."""

EMPTY = "empty"
"""The status of a session left before the candidate sent or drafted anything: listed, but not
offered to resume. Named, it still resumes; it is active again once it is taken or anything is kept."""

_ACTIVE_AGAIN = "status = CASE status WHEN 'empty' THEN 'active' ELSE status END"
_KEPT = "EXISTS (SELECT 1 FROM answers WHERE session_id=?) OR EXISTS (SELECT 1 FROM drafts WHERE session_id=?)"
"""Is anything of the candidate's in the session (its id twice): a reply or a key sent, a draft."""


class SessionDBError(InputError):
    """The session database cannot be used; the message names the file and the fix."""


class SessionBusy(SessionDBError):
    """Another live process drives this session (its lease in sessions.sqlite is held)."""

    def __init__(self, message: str, unsent: str = "") -> None:
        super().__init__(message)
        self.reason = message.split("\n", 1)[0]
        """The message without the unsent answer, for a front end that keeps the answer itself."""
        self.unsent = unsent
        """The answer this process was given but could not send (the session was taken over)."""


LEASE_TTL_S = 600
"""A lease held from another host counts as abandoned once it has not been renewed for this long
(on this host, whether its process is alive decides)."""


@dataclass(frozen=True)
class Lease:
    owner: str
    pid: int
    host: str
    renewed: str

    def alive(self) -> bool:
        if self.host != socket.gethostname():
            age = datetime.now(UTC) - datetime.fromisoformat(self.renewed)
            return age.total_seconds() < LEASE_TTL_S
        return process_alive(self.pid)


def process_alive(pid: int) -> bool:
    """Is the process running? A killed one that its parent has not reaped yet (a zombie) is not:
    right after a SIGKILL on a busy machine, a restarted front end must not wait on it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process, alive
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (not Linux): the signal check above is all there is
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


@dataclass(frozen=True)
class SessionRow:
    id: str
    started: str
    updated: str
    status: str
    plan: list[str]
    lang: str
    brain: str
    average_depth: float | None
    kind: Kind | None = None
    """Interview or drill; None for a session an earlier release listed, until its saved state is read."""

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "started": self.started,
            "updated": self.updated,
            "status": self.status,
            "questions": self.plan,
            "lang": self.lang,
            "brain": self.brain,
            "average_depth": self.average_depth,
            "kind": self.kind,
        }

    @property
    def over(self) -> bool:
        return self.status in ENDED


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def cut_to_nothing(path: Path, in_use: Callable[[], bool]) -> bool:
    """SQLite takes a 0-byte file for a new, empty database and would silently start over in it;
    when `in_use` says the home already holds sessions, the file was emptied by damage."""
    return path.exists() and path.stat().st_size == 0 and in_use()


class SessionIndex:
    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        checkpoints = path.with_name("checkpoints.sqlite")
        try:
            # As for the checkpoints: switching a new file to WAL fails at once with "database is
            # locked" when two processes do it together on a fresh home, so one at a time does it.
            # The 0-byte check is made under the same lock: a file another process has just created
            # and not yet written is 0 bytes for a moment, and was once taken for damage.
            with file_lock(path.with_name(path.name + ".lock")):
                if cut_to_nothing(path, lambda: checkpoints.exists() and checkpoints.stat().st_size > 0):
                    raise sqlite3.DatabaseError("0 bytes, although the checkpoints next to it hold sessions")
                with closing(self._connect()) as db:
                    db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise SessionDBError(
                f"the session index {path} is damaged ({exc}); move it aside to start a new one "
                f"(your checkpoints in {checkpoints} are separate)"
            ) from None

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")  # an answer is on disk when save_answer returns
        return db

    def _write(self, sql: str, args: tuple) -> None:
        with closing(self._connect()) as db:
            db.execute(sql, args)

    def _write_all(self, *statements: tuple[str, tuple]) -> None:
        """Several writes as one: all of them, or none if the process dies in between."""
        with closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")
            for sql, args in statements:
                db.execute(sql, args)
            db.execute("COMMIT")

    def create(self, session_id: str, plan: list[str], lang: str, brain: str, kind: Kind = "interview") -> None:
        stamp = now()
        self._write_all(
            (
                "INSERT INTO sessions VALUES (?, ?, ?, 'active', ?, ?, ?, NULL)",
                (session_id, stamp, stamp, json.dumps(plan), lang, brain),
            ),
            ("INSERT OR REPLACE INTO kinds VALUES (?, ?)", (session_id, kind)),
        )

    def set_kind(self, session_id: str, kind: Kind) -> None:
        """The kind of a session listed before the index kept kinds (read from its saved state)."""
        self._write("INSERT OR REPLACE INTO kinds VALUES (?, ?)", (session_id, kind))

    def finish(self, session_id: str, status: str, average_depth: float | None) -> None:
        self._write(
            "UPDATE sessions SET status=?, updated=?, average_depth=? WHERE id=?",
            (status, now(), average_depth, session_id),
        )

    def set_average_depth(self, session_id: str, average_depth: float | None) -> None:
        """The mean depth of the questions closed so far, kept as each closes (`finish` keeps the last)."""
        self._write("UPDATE sessions SET average_depth=? WHERE id=?", (average_depth, session_id))

    def save_answer(self, session_id: str, turn: int, action: str, text: str) -> None:
        self._write("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?)", (session_id, turn, action, text, now()))
        self._write(f"UPDATE sessions SET updated=?, {_ACTIVE_AGAIN} WHERE id=?", (now(), session_id))

    def save_draft(self, session_id: str, turn: int, text: str) -> None:
        """The answer being written for `turn`, not sent yet (as durable as a sent one)."""
        if text.strip():
            self._write_all(
                ("INSERT OR REPLACE INTO drafts VALUES (?, ?, ?, ?)", (session_id, turn, text, now())),
                (f"UPDATE sessions SET {_ACTIVE_AGAIN} WHERE id=?", (session_id,)),
            )
        else:
            self.clear_draft(session_id)

    def kept_anything(self, session_id: str) -> bool:
        """Has the candidate sent anything in the session (a reply or a key) or drafted an answer?"""
        with closing(self._connect()) as db:
            return db.execute(f"SELECT {_KEPT}", (session_id, session_id)).fetchone()[0] == 1

    def drafted(self, session_id: str) -> bool:
        """Is an answer being written kept for the session (whichever its turn)?"""
        with closing(self._connect()) as db:
            return db.execute("SELECT 1 FROM drafts WHERE session_id=?", (session_id,)).fetchone() is not None

    def draft(self, session_id: str, turn: int) -> str | None:
        with closing(self._connect()) as db:
            row = db.execute("SELECT text FROM drafts WHERE session_id=? AND turn=?", (session_id, turn)).fetchone()
        return row[0] if row else None

    def clear_draft(self, session_id: str) -> None:
        self._write("DELETE FROM drafts WHERE session_id=?", (session_id,))

    def saved_answer(self, session_id: str, turn: int) -> tuple[str, str] | None:
        with closing(self._connect()) as db:
            row = db.execute(
                "SELECT action, text FROM answers WHERE session_id=? AND turn=?", (session_id, turn)
            ).fetchone()
        return (row[0], row[1]) if row else None

    def answers_saved(self, session_id: str) -> int:
        """The answers the candidate typed: a key action (a hint, a repeat, I don't know) is no answer."""
        with closing(self._connect()) as db:
            return db.execute(
                "SELECT COUNT(*) FROM answers WHERE session_id=? AND action='answer'", (session_id,)
            ).fetchone()[0]

    def save_time(self, session_id: str, seconds: int) -> None:
        """The time the candidate has spent in the session so far; never less than the time kept
        already (a window that took the session over counts on from it)."""
        self._write(
            "INSERT INTO time_spent VALUES (?, ?) "
            "ON CONFLICT(session_id) DO UPDATE SET seconds = max(seconds, excluded.seconds)",
            (session_id, seconds),
        )

    def time_spent(self, session_id: str) -> int:
        with closing(self._connect()) as db:
            row = db.execute("SELECT seconds FROM time_spent WHERE session_id=?", (session_id,)).fetchone()
        return row[0] if row else 0

    def asked_wording(self, session_id: str, question: str, wording: int) -> None:
        """The candidate was asked `question` in `wording` (Question.wording) in this session."""
        self._write("INSERT OR IGNORE INTO wordings VALUES (?, ?, ?, ?)", (session_id, question, wording, now()))

    def last_wordings(self) -> dict[str, int]:
        """Question id -> the wording the candidate saw it in last."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT question, wording FROM wordings ORDER BY rowid").fetchall()
        return dict(rows)

    def take(self, session_id: str, owner: str, take_over: bool = False) -> None:
        """Make `owner` (one Interview in this process) the session's only driver. Another live
        holder refuses it with SessionBusy unless `take_over`; a dead one's lease is simply taken."""
        with closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")  # read and write as one step: two resumes cannot both win
            try:
                row = db.execute(
                    "SELECT owner, pid, host, renewed FROM leases WHERE session_id=?", (session_id,)
                ).fetchone()
                held = Lease(*row) if row else None
                if held and held.owner != owner and not take_over and held.alive():
                    raise SessionBusy(
                        f"session {session_id} is open in another process (pid {held.pid} on {held.host}, "
                        f"active {held.renewed}); finish it there, or take it over here with: "
                        f"rl-interview interview --resume {session_id} --take-over"
                    )
                db.execute(
                    "INSERT OR REPLACE INTO leases VALUES (?, ?, ?, ?, ?)",
                    (session_id, owner, os.getpid(), socket.gethostname(), now()),
                )
                db.execute(f"UPDATE sessions SET {_ACTIVE_AGAIN} WHERE id=?", (session_id,))  # driven again
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def holds(self, session_id: str, owner: str) -> bool:
        """Does `owner` still drive the session (no one has taken it over)? Renews the lease if so."""
        with closing(self._connect()) as db:
            changed = db.execute(
                "UPDATE leases SET renewed=? WHERE session_id=? AND owner=?", (now(), session_id, owner)
            ).rowcount
        return changed == 1

    def release(self, session_id: str, owner: str) -> None:
        self._write("DELETE FROM leases WHERE session_id=? AND owner=?", (session_id, owner))

    def close_if_empty(self, session_id: str) -> bool:
        """An active session that no live process drives, in which the candidate has sent nothing
        (no answer, no key) and drafted nothing, becomes `empty`. Whether it did."""
        with closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")  # no answer or lease can come between the look and the change
            try:
                row = db.execute(
                    "SELECT owner, pid, host, renewed FROM leases WHERE session_id=?", (session_id,)
                ).fetchone()
                closed = not (row and Lease(*row).alive()) and (
                    db.execute(
                        f"UPDATE sessions SET status=? WHERE id=? AND status='active' AND NOT ({_KEPT})",
                        (EMPTY, session_id, session_id, session_id),
                    ).rowcount
                    == 1
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return closed

    def close_abandoned(self) -> builtins.list[str]:  # `list` here is the method below
        """Close as empty every session left with nothing in it (a kill kept it from being closed
        as it was left). The ids closed."""
        return [row.id for row in self.list() if row.status == "active" and self.close_if_empty(row.id)]

    def list(self) -> list[SessionRow]:
        with closing(self._connect()) as db:
            rows = db.execute(
                "SELECT s.id, s.started, s.updated, s.status, s.plan, s.lang, s.brain, s.average_depth, k.kind "
                "FROM sessions s LEFT JOIN kinds k ON k.session_id = s.id ORDER BY s.started DESC, s.rowid DESC"
            ).fetchall()
        return [SessionRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6], r[7], r[8]) for r in rows]

    def get(self, session_id: str) -> SessionRow | None:
        return next((row for row in self.list() if row.id == session_id), None)

    def latest_unfinished(self) -> SessionRow | None:
        """The latest active session with something of the candidate's in it (a reply or a key
        sent, a draft): one with nothing, open elsewhere or not yet closed, is not offered over it."""
        with closing(self._connect()) as db:
            kept = {sid for (sid,) in db.execute("SELECT session_id FROM answers UNION SELECT session_id FROM drafts")}
        return next((row for row in self.list() if row.status == "active" and row.id in kept), None)

    def recent_questions(self, sessions: int = 3) -> builtins.list[str]:  # `list` here is the method above
        return [qid for row in self.list()[:sessions] for qid in row.plan]
