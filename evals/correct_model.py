"""Is a correct model overruled? The held-out gold (with `--split dev`, the dev split) replayed
through the LLM brain against a local model that knows the answers: for each turn it returns the
gold depth and, for every key point the answer shows, the candidate's sentence that shows it. The verifier should keep such a verdict; each
turn where the verified depth differs from the gold is a correct judgement thrown away (or, above
the gold, one the verifier let grow).

The quotes are labels of their own (`evals/labels/quotes/`): two labellers who saw the question, the
key points' statements and the answer, never the cues, the judge or its output, marked which points
each gold answer shows and copied the words that show them. The first pass is the model's; the
second measures how far two honest readers agree.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from agent.brains.listening import strip_meta
from agent.brains.llm.prompts import as_data
from common.errors import InputError
from evals.gold import GoldTranscript
from evals.metrics import _round, qwk
from evals.scripted_provider import LLMServer, Reply, verdict

if TYPE_CHECKING:
    from common.settings import Settings
    from knowledge.bank import Bank

QUOTE_DIR = Path(__file__).parent / "labels" / "quotes"
FIRST_PASS = QUOTE_DIR / "first_pass.jsonl"
SECOND_PASS = QUOTE_DIR / "second_pass.jsonl"
MODEL = "openai/correct-model"


class QuoteLabelError(InputError):
    """A quote label file that cannot be used; the message names the file and line."""


Shown = dict[str, list[tuple[str, str]]]
"""Turn id (`<transcript>#<index>`) -> the (key point, quote) pairs its answer shows."""


def load_quotes(path: Path) -> Shown:
    shown: Shown = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            pairs = [(str(s["key_point"]), str(s["quote"])) for s in row["shown"]]
            shown[str(row["turn"])] = pairs
        except (ValueError, KeyError, TypeError) as exc:
            raise QuoteLabelError(
                f"{path}:{number}: not a quote label ({type(exc).__name__}: {exc}); "
                'expected {"turn": ..., "shown": [{"key_point": ..., "quote": ...}]}'
            ) from None
    return shown


def agreement(first: Shown, second: Shown, points_of: dict[str, list[str]]) -> dict[str, Any]:
    """Cohen's kappa of the two passes over every (turn, key point) pair: shown or not."""
    both = only_first = only_second = neither = 0
    for turn, points in points_of.items():
        a = {kp for kp, _ in first.get(turn, [])}
        b = {kp for kp, _ in second.get(turn, [])}
        for kp in points:
            both += kp in a and kp in b
            only_first += kp in a and kp not in b
            only_second += kp in b and kp not in a
            neither += kp not in a and kp not in b
    n = both + only_first + only_second + neither
    if not n:
        return {"pairs": 0, "agreement": None, "kappa": None}
    observed = (both + neither) / n
    chance = ((both + only_first) * (both + only_second) + (neither + only_second) * (neither + only_first)) / n**2
    kappa = (observed - chance) / (1 - chance) if chance < 1 else 1.0
    return {
        "pairs": n,
        "agreement": round(observed, 3),
        "kappa": round(kappa, 3),
        "first_only": only_first,
        "second_only": only_second,
    }


@dataclass(frozen=True)
class _Answer:
    text: str
    """The answer as the model is sent it (tags neutralised), whitespace squashed."""
    prompt: str
    depth: int
    shown: list[tuple[str, str]]


ANSWER_BLOCK = re.compile(r"<candidate_answer>\n(.*?)\n</candidate_answer>", re.S)


def _squash(text: str) -> str:
    return " ".join(text.split())


class CorrectModel:
    """Answers each assessment request with the gold verdict of the answer inside it."""

    def __init__(self, transcripts: list[GoldTranscript], bank: Bank, shown: Shown) -> None:
        self.answers: list[_Answer] = []
        self.unlabelled: list[str] = []
        for transcript in transcripts:
            for index, turn in enumerate(transcript.turns):
                turn_id = f"{transcript.id}#{index}"
                if turn_id not in shown:
                    self.unlabelled.append(turn_id)
                sent = ANSWER_BLOCK.search(as_data(turn.answer))
                assert sent is not None  # as_data always wraps the answer in the block
                self.answers.append(
                    _Answer(
                        _squash(sent.group(1)), bank[turn.question].prompt.en, turn.gold.depth, shown.get(turn_id, [])
                    )
                )

    def __call__(self, body: dict[str, Any]) -> Reply | None:
        if body.get("stream"):
            return None  # follow-ups: the server's plain default line
        messages = body.get("messages") or []
        user = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
        system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
        blocks = ANSWER_BLOCK.findall(user)
        if not blocks:
            return None
        # The interviewer hears the reply before judging it: talk about the conversation ("yeah so",
        # "I just said it") is taken out and the sentences are sent one per line. So the answer is
        # the gold one that holds most of the lines sent, the same question's first, the closest
        # in length next.
        lines = [_squash(line) for line in blocks[-1].splitlines() if line.strip()]
        sent = " ".join(lines)

        def fit(a: _Answer) -> tuple[bool, float, bool, int]:
            held = sum(line in a.text for line in lines) / max(len(lines), 1)
            return a.text == sent, held, a.prompt in system, -abs(len(a.text) - len(sent))

        best = max(self.answers, key=fit, default=None)
        if best is None or fit(best)[1] < 0.5:
            return None
        points = [{"id": kp, "status": "covered", "quote": _as_heard(quote, sent)} for kp, quote in best.shown]
        return verdict(key_points=points, depth=best.depth, rationale="The labelled sentences show these points.")


def _as_heard(quote: str, sent: str) -> str:
    """The labelled words as the model was sent them: an honest model quotes what it read, so a
    quote that opened with talk the interviewer took out ("Okay, ...") loses that opening."""
    if _squash(quote) in sent:
        return quote
    heard = " ".join(strip_meta(quote).splitlines())
    return heard if heard and _squash(heard) in sent else quote


def label_depths(transcripts: list[GoldTranscript], bank: Bank, shown: Shown) -> dict[str, int]:
    """Turn id -> the depth the level rule gives the labelled points (so far on the question): what a
    verifier that accepted every labelled quote would allow."""
    from agent.judge.scoring import depth_of
    from agent.state import Evidence

    depths: dict[str, int] = {}
    question_id: str | None
    points: dict[str, Evidence]
    for transcript in transcripts:
        question_id, points = None, {}
        for index, turn in enumerate(transcript.turns):
            if turn.question != question_id or turn.asked is None:
                question_id, points = turn.question, {}
            question = bank[turn.question]
            turn_id = f"{transcript.id}#{index}"
            for kp, quote in shown.get(turn_id, []):
                points[kp] = Evidence(key_point=kp, level=question.key_point(kp).level, quote=quote)
            depths[turn_id] = depth_of(question, list(points.values()), mentioned=False)
    return depths


def run(transcripts: list[GoldTranscript], bank: Bank, settings: Settings, shown: Shown) -> dict[str, Any]:
    """Replay `transcripts` through the LLM brain against the correct model; the figures."""
    from agent.app import make_brain
    from agent.interview.retrieval import NotesRetriever
    from evals.replay import evaluate

    model = CorrectModel(transcripts, bank, shown)
    server = LLMServer()
    server.responder = model
    try:
        llm = settings.llm.model_copy(
            update={"model": MODEL, "api_base": server.url, "api_key": SecretStr("unused"), "max_cost": None}
        )
        brain = make_brain(settings.model_copy(update={"llm": llm}))
        report = evaluate(transcripts, bank, brain, NotesRetriever(settings.knowledge.chunk_tokens))
    finally:
        server.stop()
    turns = report["per_turn"]
    labels = label_depths(transcripts, bank, shown)
    labelled = [labels[f"{t['transcript']}#{t['index']}"] for t in turns]
    differs = [
        {
            "turn": f"{t['transcript']}#{t['index']}",
            "gold": t["gold_depth"],
            "verified": t["depth"],
            "fallback": t["fallback_reason"],
        }
        for t in turns
        if t["depth"] != t["gold_depth"]
    ]
    return {
        "split": "+".join(sorted({t.split for t in transcripts})),
        "turns": len(turns),
        "kept": _share([t["depth"] == t["gold_depth"] for t in turns]),
        "below_gold": sum(t["depth"] < t["gold_depth"] for t in turns),
        "above_gold": sum(t["depth"] > t["gold_depth"] for t in turns),
        "qwk": _round(qwk([t["gold_depth"] for t in turns], [t["depth"] for t in turns])),
        "level_rule_on_labels": _share([d == t["gold_depth"] for d, t in zip(labelled, turns, strict=True)]),
        "verified_equals_labels": _share([d == t["depth"] for d, t in zip(labelled, turns, strict=True)]),
        "fell_back": sum(bool(t["fallback_reason"]) for t in turns),
        "unlabelled_turns": model.unlabelled,
        "differs": differs,
    }


def _share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def render(result: dict[str, Any]) -> str:
    lines = [
        f"correct model, {result.get('split', 'heldout')}: {result['turns']} turns; verified depth = gold in {result['kept']:.1%} "
        f"(target 90%); below gold {result['below_gold']}, above {result['above_gold']}; "
        f"QWK {result['qwk']}; offline fallbacks {result['fell_back']}",
        f"where it is lost: the level rule applied to the labelled points gives the gold depth in "
        f"{result['level_rule_on_labels']:.1%} of turns; the verified depth equals that in "
        f"{result['verified_equals_labels']:.1%}",
    ]
    if result.get("labels"):
        labels = result["labels"]
        lines.append(
            f"quote labels: two blind passes agree on {labels['agreement']} of {labels['pairs']} "
            f"(turn, point) pairs, kappa {labels['kappa']}"
        )
    if result["unlabelled_turns"]:
        lines.append(
            f"turns without a quote label (scored as showing nothing): {', '.join(result['unlabelled_turns'])}"
        )
    lines += [
        f"  {d['turn']}: gold {d['gold']}, verified {d['verified']}" + (f" ({d['fallback']})" if d["fallback"] else "")
        for d in result["differs"]
    ]
    return "\n".join(lines)
