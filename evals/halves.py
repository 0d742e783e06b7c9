"""The table of a blind set measured in a dev and a test half (`eval --topic`, `eval --trends`): one
row per half and group, counted over what both raters agreed on."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import TypeVar

Outcome = TypeVar("Outcome")


def halves_report(
    items: int,
    agreed: Iterable[tuple[str, Iterable[str], Outcome]],
    figures: Callable[[list[Outcome]], dict],
) -> dict:
    """`agreed` holds (half, groups, outcome) for each item both raters labelled alike; `figures` turns
    one group's outcomes into its row, to which the count `n` is added."""
    groups: dict[str, dict[str, list[Outcome]]] = defaultdict(lambda: defaultdict(list))
    counted = 0
    for split, keys, outcome in agreed:
        counted += 1
        for key in keys:
            groups[split][key].append(outcome)
    return {
        "items": items,
        "raters_agree": round(counted / max(items, 1), 3),
        "splits": {
            split: {key: {"n": len(outcomes), **figures(outcomes)} for key, outcomes in sorted(by_key.items())}
            for split, by_key in sorted(groups.items())
        },
    }


def halves_table(
    report: dict, noun: str, columns: list[str], cells: Callable[[dict], list[str]], note: str = ""
) -> str:
    """`report` as the evaluators build it: items, raters_agree, splits -> group -> figures."""
    lines = [
        f"{report['items']} {noun}; the two raters agree on {report['raters_agree']:.1%} (only those are counted)."
    ]
    lines += [note] if note else []
    lines += ["", "| " + " | ".join(["half", "group", noun, *columns]) + " |", "|---" * (len(columns) + 3) + "|"]
    for split, by_key in report["splits"].items():
        lines += [" | ".join(["", split, key, str(r["n"]), *cells(r), ""]).strip() for key, r in by_key.items()]
    return "\n".join(lines)
