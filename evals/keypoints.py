"""`rl-interview eval --keypoints [PATH]`: key-point and misconception detection, sentence by sentence.

The items (`evals/keypoints/*.yaml`) were written blind to the rubric's cues and the judge by
writers other than the exemplars' own. `test_*.yaml` is the test part: nothing is tuned on it.
`dev_*.yaml` is the development part, used to choose the judge's features and thresholds.

Each item is a sentence, its question, what it shows (a key point id, `misconception:<id>`, or
`none`), its kind and language. Rates, per kind and language, for the judge by meaning and the
cue-only matcher side by side:
- paraphrase, plain: recall (the expected key point is credited);
- hard_negative: false positives (the key point named in `about` is credited; without `about`,
  any key point);
- misconception: recall (the misconception is flagged); denial: false positives (the misconception
  it denies, `about`, is flagged);
- other_concept: false positives (any key point is credited).
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from agent.judge.claims import read_sentences
from common.yaml_lines import LineLoader, line_of
from knowledge.bank import Bank, BankProblem

if TYPE_CHECKING:
    from agent.judge.meaning import MeaningJudge

KEYPOINT_DIR = Path(__file__).parent / "keypoints"
KINDS = ("paraphrase", "plain", "hard_negative", "misconception", "denial", "other_concept")
RECALL_KINDS = ("paraphrase", "plain", "misconception")


class KeypointItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    sentence: str
    expected: str
    kind: Literal["paraphrase", "plain", "hard_negative", "misconception", "denial", "other_concept"]
    lang: Literal["en", "zh", "mixed"]
    about: str | None = None


def load_items(paths: list[Path], bank: Bank) -> tuple[list[tuple[str, KeypointItem]], list[BankProblem]]:
    """(file stem, item) pairs and the problems found; a bad item is reported and left out."""
    files = [f for p in paths for f in (sorted(p.glob("*.yaml")) if p.is_dir() else [p])]
    items: list[tuple[str, KeypointItem]] = []
    problems: list[BankProblem] = []
    for path in files:
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=LineLoader)  # LineLoader is a SafeLoader subclass
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            problems.append(BankProblem(path, f"not readable YAML: {exc}"))
            continue
        if not isinstance(data, list):
            problems.append(BankProblem(path, "expected a list of items", 1))
            continue
        previous: KeypointItem | None = None
        for n, raw in enumerate(data):
            try:
                item = KeypointItem.model_validate(raw)
            except ValidationError as exc:
                first = exc.errors()[0]
                problems.append(
                    BankProblem(
                        path,
                        f"item {n + 1}, field {'.'.join(map(str, first['loc']))}: {first['msg']}",
                        line_of(data, [n, *first["loc"]]),
                    )
                )
                continue
            problem = _check(item, bank)
            if problem:
                problems.append(BankProblem(path, f"item {n + 1}: {problem}", getattr(raw, "line", None)))
                continue
            if (
                item.about is None
                and item.kind in ("hard_negative", "denial")
                and previous is not None
                and previous.question == item.question
            ):
                # Files without `about` keep each negative right after the item it negates.
                target = previous.expected.removeprefix("misconception:")
                item = item.model_copy(update={"about": target})
            items.append((path.stem, item))
            previous = item
    return items, problems


def shingles(text: str, n: int = 5) -> set[tuple[str, ...]]:
    """Word (and CJK character) 5-grams: what "nearly the same sentence" is measured in."""
    words = re.findall(r"[a-z0-9]+|[\u3400-\u9fff]", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def near_duplicates(probes: list[str], texts: list[str], share: float = 0.5) -> set[str]:
    """The texts some probe shares more than `share` of its 5-grams with (probes too short to
    tell, under four 5-grams, are passed over)."""
    index: dict[tuple[str, ...], set[int]] = {}
    for i, text in enumerate(texts):
        for shingle in shingles(text):
            index.setdefault(shingle, set()).add(i)
    found: set[str] = set()
    for probe in probes:
        grams = shingles(probe)
        if len(grams) < 4:
            continue
        overlap: dict[int, int] = {}
        for shingle in grams:
            for i in index.get(shingle, ()):
                overlap[i] = overlap.get(i, 0) + 1
        found |= {texts[i] for i, n in overlap.items() if n > share * len(grams)}
    return found


def _check(item: KeypointItem, bank: Bank) -> str | None:
    if item.question not in bank:
        return f"unknown question {item.question!r}"
    question = bank[item.question]
    points = {kp.id for kp in question.key_points}
    wrongs = {m.id for m in question.misconceptions}
    if item.expected.startswith("misconception:"):
        if item.expected.removeprefix("misconception:") not in wrongs:
            return f"unknown misconception {item.expected!r} of {item.question}"
    elif item.expected != "none" and item.expected not in points:
        return f"unknown key point {item.expected!r} of {item.question}"
    return None


@dataclass
class Outcome:
    kind: str
    lang: str
    hit: bool
    """Recall kinds: the expected claim was found; the others: a false positive."""


def judge_items(items: list[KeypointItem], bank: Bank, judge: MeaningJudge | None) -> tuple[list[Outcome], float]:
    """Outcomes and the mean milliseconds per sentence (embedding in batches of 64 included)."""
    outcomes = []
    start = time.perf_counter()
    if judge is not None:
        for at in range(0, len(items), 64):  # batches: the judge keeps what it embedded
            judge.embed([item.sentence for item in items[at : at + 64]])
    for item in items:
        claims = read_sentences(bank[item.question], [item.sentence], judge)[0]
        points = {c.key_point for c in claims.points}
        wrongs = {c.misconception for c in claims.misconceptions}
        if item.kind in ("paraphrase", "plain"):
            hit = item.expected in points
        elif item.kind == "misconception":
            hit = item.expected.removeprefix("misconception:") in wrongs
        elif item.kind == "hard_negative":
            hit = item.about in points if item.about else bool(points)
        elif item.kind == "denial":
            hit = item.about in wrongs if item.about else bool(wrongs)
        else:
            hit = bool(points)
        outcomes.append(Outcome(item.kind, item.lang, hit))
    return outcomes, 1000 * (time.perf_counter() - start) / max(len(items), 1)


def rates(outcomes: list[Outcome]) -> dict[str, dict[str, dict[str, float | int]]]:
    """{kind: {language or 'all': {rate, n}}}."""
    groups: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for o in outcomes:
        groups[(o.kind, o.lang)].append(o.hit)
        groups[(o.kind, "all")].append(o.hit)
    out: dict[str, dict[str, dict[str, float | int]]] = defaultdict(dict)
    for (kind, lang), hits in sorted(groups.items()):
        out[kind][lang] = {"rate": round(sum(hits) / len(hits), 3), "n": len(hits)}
    return dict(out)


def evaluate_keypoints(paths: list[Path], bank: Bank, judge: MeaningJudge | None) -> dict:
    loaded, problems = load_items(paths, bank)
    parts: dict[str, list[KeypointItem]] = defaultdict(list)
    for stem, item in loaded:
        parts["test" if stem.startswith("test") else "dev"].append(item)
    report: dict = {"problems": [str(p) for p in problems], "parts": {}}
    for part, items in sorted(parts.items()):
        meaning, ms = judge_items(items, bank, judge)
        cues, cue_ms = judge_items(items, bank, None)
        report["parts"][part] = {
            "items": len(items),
            "meaning": rates(meaning),
            "cues": rates(cues),
            "ms_per_sentence": {"meaning": round(ms, 1), "cues": round(cue_ms, 1)},
        }
    return report


def table(report: dict) -> str:
    lines = []
    for part, figures in report["parts"].items():
        lines += [
            f"{part} part: {figures['items']} sentences; ms per sentence: meaning {figures['ms_per_sentence']['meaning']}, "
            f"cues {figures['ms_per_sentence']['cues']}",
            "",
            "| kind | measure | lang | n | meaning | cues only |",
            "|---|---|---|---|---|---|",
        ]
        for kind in KINDS:
            measure = "recall" if kind in RECALL_KINDS else "false positives"
            for lang in ("all", "en", "zh", "mixed"):
                m = figures["meaning"].get(kind, {}).get(lang)
                c = figures["cues"].get(kind, {}).get(lang)
                if m:
                    lines.append(f"| {kind} | {measure} | {lang} | {m['n']} | {m['rate']:.3f} | {c['rate']:.3f} |")
        lines.append("")
    return "\n".join(lines)
