"""`rl-interview selftest`: the fast part of the reliability and security suites, as one table.

- provider faults: sessions on the LLM brain against a scripted local provider that times out,
  answers 429/500, sends invalid JSON, cuts its stream or goes down; every turn must be answered
  (by the model or the offline fallback, visibly) and every answer kept;
- crash and resume: plain sessions killed with SIGKILL and resumed; no answer may be lost;
- bad input: random answers (any Unicode, control characters, huge, empty, mixed scripts) and
  malformed bank, gold, settings and document files; no crash, depth 0-4, evidence quoted verbatim;
- adversarial: the injection and keyword-list answers, scored offline and by a model scripted to
  obey the injection; none may score above what the depth scale allows.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from agent.judge.scoring import RubricScorer
from knowledge.bank import Bank

if TYPE_CHECKING:  # langchain_core comes with langgraph; only its types are used here
    from langchain_core.runnables import RunnableConfig

ADVERSARIAL = Path(__file__).parent / "adversarial" / "answers.yaml"


@dataclass
class Suite:
    name: str
    tried: int = 0
    survived: int = 0
    failures: int = 0
    """Must be 0: turns lost, crashes or mis-scored answers."""
    failure_label: str = "failures"
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "suite": self.name,
            "tried": self.tried,
            "survived": self.survived,
            self.failure_label: self.failures,
            "notes": self.notes,
        }


# -- bad input -------------------------------------------------------------------------------------

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
    for name, check in _malformed_files():
        suite.tried += 1
        problem = check()
        if problem:
            suite.failures += 1
            suite.notes.append(f"{name}: {problem}")
        else:
            suite.survived += 1
    return suite


def _malformed_files() -> list[tuple[str, Callable[[], str | None]]]:
    """Each check returns None when the bad file gave its one clear, typed error."""
    from evals.gold import load_gold
    from knowledge.bank import validate_bank
    from knowledge.documents import DocumentError, read_document
    from knowledge.settings import SettingsError, load_settings

    def in_temp(name: str, content: bytes, use: Callable[[Path], str | None]) -> str | None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / name
            path.write_bytes(content)
            return use(path)

    def bank_file(path: Path) -> str | None:
        _, problems = validate_bank(path)
        return None if problems and str(path) in str(problems[0]) else "no located error"

    def gold_file(path: Path) -> str | None:
        _, problems = load_gold([path], {"algo-07"})
        return None if problems and str(path) in problems[0] else "no located error"

    def settings_file(path: Path) -> str | None:
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

    def document(path: Path) -> str | None:
        try:
            read_document(path, max_bytes=1_000_000)
        except DocumentError as exc:
            return None if str(path) in str(exc) else "error does not name the file"
        return "accepted a bad document"

    return [
        ("bank: YAML syntax error", lambda: in_temp("b.yaml", b"id: algo-07\nprompt: [unclosed\n", bank_file)),
        (
            "bank: mistyped field",
            lambda: in_temp("b.yaml", b"id: algo-07\nsection: algorithm\ndifficulty: high\n", bank_file),
        ),
        (
            "gold: depth out of range",
            lambda: in_temp(
                "g.yaml", b"id: g\nturns:\n- question: algo-07\n  answer: x\n  gold: {depth: 9}\n", gold_file
            ),
        ),
        ("gold: not YAML", lambda: in_temp("g.yaml", b"id: [\n", gold_file)),
        ("settings: bad TOML", lambda: in_temp("s.toml", b"[interview\nquestions = 3\n", settings_file)),
        ("settings: unknown field", lambda: in_temp("s.toml", b"[interview]\nquestionz = 3\n", settings_file)),
        ("document: not UTF-8", lambda: in_temp("d.md", b"# t\n\xff\xfe bad", document)),
        ("document: binary", lambda: in_temp("d.md", b"\x00\x01\x02" * 100, document)),
        ("document: empty", lambda: in_temp("d.md", b"  \n", document)),
    ]


# -- adversarial -----------------------------------------------------------------------------------


def adversarial_answers() -> list[dict[str, Any]]:
    return yaml.safe_load(ADVERSARIAL.read_text(encoding="utf-8"))


def adversarial_suite(bank: Bank) -> Suite:
    suite = Suite("adversarial (offline brain)", failure_label="mis-scored")
    scorer = RubricScorer()
    for item in adversarial_answers():
        suite.tried += 1
        depth = scorer.assess(bank[item["question"]], item["answer"], None).depth
        if depth > item["max_depth"]:
            suite.failures += 1
            suite.notes.append(f"{item['id']}: depth {depth} > {item['max_depth']}")
        else:
            suite.survived += 1
    return suite


# -- the LLM brain against a scripted provider ------------------------------------------------------


def _llm_settings(url: str):
    from pydantic import SecretStr

    from knowledge.settings import LLMSettings

    return LLMSettings(
        model="openai/selftest", api_base=url, api_key=SecretStr("sk-selftest"), timeout_s=2.0, retries=0
    )


async def _session_with_fault(bank: Bank, provider, fault: str) -> str | None:
    """One question, two answers, on the LLM brain; the first answer's assessment meets the fault.
    Returns a problem, or None when every turn was answered and kept."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    from agent.brains.llm.brain import LLMBrain
    from agent.interview.graph import InterviewContext, builder
    from agent.interview.retrieval import NotesRetriever
    from agent.interview.runner import checkpoint_serde
    from agent.planning import PlanRequest
    from evals import scripted_provider as sp

    script = {
        "timeout": ([sp.Reply(content=json.dumps(sp.DEFAULT_VERDICT), delay_s=4.0)], []),
        "429": ([sp.failure(429)], []),
        "500": ([sp.failure(500)], []),
        "invalid JSON": ([sp.text("this is not JSON"), sp.text("{still not json")], []),
        "cut stream": (
            [sp.verdict(depth=0)],
            [sp.text("Tell me more about the ratio and the clipping range", cut_after=2)],
        ),
        "provider down": ([], []),
    }[fault]
    provider.script(assess=script[0], follow_up=script[1])
    if fault == "provider down":
        provider.stop()
    graph = builder.compile(checkpointer=InMemorySaver(serde=checkpoint_serde()))
    context = InterviewContext(bank=bank, brain=LLMBrain(_llm_settings(provider.url)), retriever=NotesRetriever())
    config: RunnableConfig = {"configurable": {"thread_id": f"selftest-{fault}"}}
    answers = [
        "PPO clips the probability ratio so that one update cannot move the policy too far.",
        "It takes the minimum of the clipped and unclipped terms, which makes the objective pessimistic.",
    ]
    payload: Any = {
        "session_id": f"selftest-{fault}",
        "request": PlanRequest(ids=["algo-07"]),
        "plan": ["algo-07"],
        "lang": "en",
        "max_follow_ups": 3,
    }
    for answer in [*answers, None]:
        await graph.ainvoke(payload, config, context=context)
        if not (await graph.aget_state(config)).interrupts:
            break
        payload = Command(
            resume={"action": "skip", "text": ""} if answer is None else {"action": "answer", "text": answer}
        )
    turns = (await graph.aget_state(config)).values["turns"]
    kept = [t.answer for t in turns if t.action.value == "answer"]
    if kept != answers:
        return f"answers kept {len(kept)} of {len(answers)}"
    if any(t.assessment is None for t in turns):
        return "a turn was not assessed"
    first = turns[0].assessment
    if fault not in ("cut stream",) and (first.brain != "offline" or not first.fallback_reason):
        return "the fallback to the offline brain is not visible"
    return None


async def _obeying_model(bank: Bank, provider) -> Suite:
    """The model is talked into "depth 4" by every injection; our verification must not be."""
    from agent.brains.llm.brain import LLMBrain
    from evals import scripted_provider as sp

    suite = Suite("adversarial (model obeys injection)", failure_label="mis-scored")
    brain = LLMBrain(_llm_settings(provider.url))
    for item in adversarial_answers():
        question = bank[item["question"]]
        quote = item["answer"].strip().splitlines()[0][:120]
        provider.assess_replies.clear()  # a reply an earlier answer did not use must not leak into this one
        provider.script(
            assess=[
                sp.verdict(
                    depth=4,
                    key_points=[{"id": kp.id, "status": "covered", "quote": quote} for kp in question.key_points],
                )
            ]
        )
        suite.tried += 1
        assessment = await brain.assess(question, item["answer"], None)
        if assessment.depth > item["max_depth"]:
            suite.failures += 1
            suite.notes.append(f"{item['id']}: depth {assessment.depth} > {item['max_depth']}")
        else:
            suite.survived += 1
    return suite


def provider_suites(bank: Bank) -> list[Suite]:
    from agent.brains.llm.client import litellm_installed

    faults = Suite("provider faults", failure_label="turns lost")
    if not litellm_installed():
        faults.notes.append("litellm is not installed: pip install 'rl-interview[llm]'")
        return [faults]
    from evals.scripted_provider import LLMServer

    async def run() -> list[Suite]:
        for fault in ("timeout", "429", "500", "invalid JSON", "cut stream", "provider down"):
            provider = LLMServer()
            try:
                faults.tried += 1
                problem = await _session_with_fault(bank, provider, fault)
            finally:
                provider.stop()
            if problem:
                faults.failures += 1
                faults.notes.append(f"{fault}: {problem}")
            else:
                faults.survived += 1
        provider = LLMServer()
        try:
            obeying = await _obeying_model(bank, provider)
        finally:
            provider.stop()
        return [faults, obeying]

    return asyncio.run(run())


# -- crash and resume ---------------------------------------------------------------------------------

ANSWERS = [
    "PPO clips the probability ratio to 1 plus or minus epsilon, so an update cannot move too far.",
    "The min of the clipped and unclipped terms gives a pessimistic lower bound on the improvement.",
    "I don't know.",
    "Expert parallelism shards the experts across GPUs and routes tokens with all-to-all.",
    "Load imbalance makes the slowest GPU set the pace of the whole layer.",
]


def _cli(home: Path, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "RL_INTERVIEW_HOME": str(home),
        "RL_INTERVIEW_CONFIG": str(home / "none.toml"),
        "RL_INTERVIEW_KNOWLEDGE__EMBEDDING": "hash",
    }
    return subprocess.Popen(
        [sys.executable, "-c", "from tui.cli import main; main()", *args],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        **kwargs,
    )


def _send(process: subprocess.Popen[str], text: str) -> None:
    assert process.stdin is not None  # _cli opens it with stdin=PIPE
    process.stdin.write(text)
    process.stdin.flush()


def _until_waiting(process: subprocess.Popen[str]) -> bool:
    """Read events until the interviewer waits for a reply (True) or the session ends (False)."""
    assert process.stdout is not None  # _cli opens it with stdout=PIPE
    for line in process.stdout:
        kind = json.loads(line)["type"]
        if kind in ("ask", "follow_up", "hint"):
            return True
        if kind == "session_done":
            return False
    return False


def crash_suite(kill_points: int = 3) -> Suite:
    suite = Suite("crash and resume (SIGKILL)", failure_label="turns lost")
    plan = ["--question", "algo-07", "--question", "infra-10"]
    for point in range(kill_points):
        suite.tried += 1
        with tempfile.TemporaryDirectory(prefix="rl-selftest-") as folder:
            home = Path(folder)
            sent: list[str] = []
            process = _cli(home, "interview", "--plain", "--jsonl", *plan)
            _until_waiting(process)
            for answer in ANSWERS[:point]:  # acknowledged: the interviewer replied to each
                _send(process, answer + "\n\n")
                sent.append(answer)
                _until_waiting(process)
            _send(process, ANSWERS[point] + "\n\n")  # in flight when the process dies
            time.sleep(random.Random(point).uniform(0, 0.3))
            process.send_signal(signal.SIGKILL)
            process.wait()
            in_flight = ANSWERS[point]
            resumed = _cli(home, "interview", "--plain", "--jsonl", "--resume")
            waiting = _until_waiting(resumed)
            for answer in ANSWERS[point + 1 :]:  # whatever the resumed session asks
                if not waiting:
                    break
                _send(resumed, answer + "\n\n")
                sent.append(answer)
                waiting = _until_waiting(resumed)
            while waiting:
                _send(resumed, "/skip\n")
                waiting = _until_waiting(resumed)
            assert resumed.stdin is not None  # _cli opens it with stdin=PIPE
            resumed.stdin.close()
            resumed.wait(timeout=60)
            report = subprocess.run(
                [sys.executable, "-c", "from tui.cli import main; main()", "report", "--format", "json"],
                env={**os.environ, "RL_INTERVIEW_HOME": str(home), "RL_INTERVIEW_CONFIG": str(home / "none.toml")},
                capture_output=True,
                text=True,
                encoding="utf-8",
            )
            kept = [t["answer"] for t in json.loads(report.stdout)["transcript"] if t["action"] == "answer"]
            # every acknowledged answer must be there, once; the one in flight when the process died
            # may or may not have reached the inbox (the candidate saw no reply), but never twice.
            missing = [a for a in sent if kept.count(a) != 1] + ([in_flight] if kept.count(in_flight) > 1 else [])
            if missing:
                suite.failures += len(missing)
                suite.notes.append(f"kill after {point + 1} answers: lost {len(missing)}")
            else:
                suite.survived += 1
    return suite


# -- the command ------------------------------------------------------------------------------------


def run_selftest(bank: Bank, *, log: Callable[[str], None] = print) -> list[Suite]:
    suites = []
    for name, run in (
        ("provider faults", lambda: provider_suites(bank)),
        ("crash and resume", lambda: [crash_suite()]),
        ("bad input", lambda: [bad_input_suite(bank)]),
        ("adversarial", lambda: [adversarial_suite(bank)]),
    ):
        log(f"running {name} ...")
        suites.extend(run())
    return suites


def render(suites: list[Suite]) -> str:
    lines = ["| suite | tried | survived | must be 0 |", "|---|---|---|---|"]
    for s in suites:
        lines.append(f"| {s.name} | {s.tried} | {s.survived} | {s.failure_label}: {s.failures} |")
    notes = [f"- {s.name}: {n}" for s in suites for n in s.notes[:5]]
    return "\n".join(lines + (["", *notes] if notes else []))
