"""The table of a blind set measured in a dev and a test half (`eval --topic`, `eval --trends`): one
row per half and group, counted over what both raters agreed on."""

from __future__ import annotations

from collections.abc import Callable


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
