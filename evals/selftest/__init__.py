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

from collections.abc import Callable

from evals.selftest.adversarial import adversarial_suite
from evals.selftest.bad_input import bad_input_suite
from evals.selftest.crash import crash_suite
from evals.selftest.provider import provider_suites
from evals.selftest.suite import Suite
from knowledge.bank import Bank


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
