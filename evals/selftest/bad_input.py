"""Bad input: random answers (any Unicode, control characters, huge, empty, mixed scripts) and
malformed bank, gold, settings and document files; no crash, depth 0-4, evidence quoted verbatim."""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

from agent.judge.scoring import RubricScorer
from common.settings import SettingsError, load_settings
from evals.gold import load_gold
from evals.selftest.suite import Suite
from knowledge.bank import Bank, validate_bank
from knowledge.documents import DocumentError, read_document

ALPHABETS = [
    "abcdefghij klmnop",
    "的是不了人我在有他这中大来上",
    "αβγδε ∑∫√",
    "\x00\x1b[31m\x07\r\t\u202e\ufeff",
    "🙂🚀👩‍💻",
    "PPO clip ratio min 1-ε GRPO KL",
    "\n\n",
    "ß äöü ñ",
    "\ud7ff\ue000",
]


def random_answer(rng: random.Random) -> str:
    size = rng.choice([0, 1, 5, 40, 300, 3_000, 60_000])
    pieces = [rng.choice(ALPHABETS) for _ in range(max(1, size // 10))]
    return "".join(rng.choice(p) for p in pieces for _ in range(10))[:size]


def bad_input_suite(bank: Bank, answers: int = 300, seed: int = 0) -> Suite:
    suite = Suite("bad input", failure_label="crashes")
    scorer = RubricScorer()
    rng = random.Random(seed)
    questions = bank.questions()
    for _ in range(answers):
        answer = random_answer(rng)
        suite.tried += 1
        try:
            assessment = scorer.assess(rng.choice(questions), answer, None)
        except Exception as exc:  # the suite counts crashes rather than stopping at the first
            suite.failures += 1
            suite.notes.append(f"answer of {len(answer)} chars: {type(exc).__name__}: {exc}")
            continue
        if not 0 <= assessment.depth <= 4 or any(e.quote not in answer for e in assessment.covered):
            suite.failures += 1
            suite.notes.append(f"answer of {len(answer)} chars: depth {assessment.depth} or an unquoted evidence")
        else:
            suite.survived += 1
    for name, check in malformed_files():
        suite.tried += 1
        problem = check()
        if problem:
            suite.failures += 1
            suite.notes.append(f"{name}: {problem}")
        else:
            suite.survived += 1
    return suite


def malformed_files() -> list[tuple[str, Callable[[], str | None]]]:
    """Each check returns None when the bad file gave its one clear, typed error."""
    return [
        ("bank: YAML syntax error", lambda: _in_temp("b.yaml", b"id: algo-07\nprompt: [unclosed\n", _bank_file)),
        (
            "bank: mistyped field",
            lambda: _in_temp("b.yaml", b"id: algo-07\nsection: algorithm\ndifficulty: high\n", _bank_file),
        ),
        (
            "gold: depth out of range",
            lambda: _in_temp(
                "g.yaml", b"id: g\nturns:\n- question: algo-07\n  answer: x\n  gold: {depth: 9}\n", _gold_file
            ),
        ),
        ("gold: not YAML", lambda: _in_temp("g.yaml", b"id: [\n", _gold_file)),
        ("settings: bad TOML", lambda: _in_temp("s.toml", b"[interview\nquestions = 3\n", _settings_file)),
        ("settings: unknown field", lambda: _in_temp("s.toml", b"[interview]\nquestionz = 3\n", _settings_file)),
        ("document: not UTF-8", lambda: _in_temp("d.md", b"# t\n\xff\xfe bad", _document)),
        ("document: binary", lambda: _in_temp("d.md", b"\x00\x01\x02" * 100, _document)),
        ("document: empty", lambda: _in_temp("d.md", b"  \n", _document)),
    ]


def _in_temp(name: str, content: bytes, use: Callable[[Path], str | None]) -> str | None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(content)
        return use(path)


def _bank_file(path: Path) -> str | None:
    _, problems = validate_bank(path)
    return None if problems and str(path) in str(problems[0]) else "no located error"


def _gold_file(path: Path) -> str | None:
    _, problems = load_gold([path], {"algo-07"})
    return None if problems and str(path) in problems[0] else "no located error"


def _settings_file(path: Path) -> str | None:
    previous = os.environ.get("RL_INTERVIEW_CONFIG")
    os.environ["RL_INTERVIEW_CONFIG"] = str(path)
    try:
        load_settings()
    except SettingsError as exc:
        return None if str(path) in str(exc) else "error does not name the file"
    finally:
        if previous is None:
            os.environ.pop("RL_INTERVIEW_CONFIG", None)
        else:
            os.environ["RL_INTERVIEW_CONFIG"] = previous
    return "accepted a broken settings file"


def _document(path: Path) -> str | None:
    try:
        read_document(path, max_bytes=1_000_000)
    except DocumentError as exc:
        return None if str(path) in str(exc) else "error does not name the file"
    return "accepted a bad document"
