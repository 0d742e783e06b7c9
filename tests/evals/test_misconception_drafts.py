"""The drafted misconceptions' loader: a broken draft is named, never half-loaded."""

from __future__ import annotations

import pytest

from evals.misconception_drafts import load_misconception_drafts


def test_a_draft_with_too_few_assertions_is_named_with_its_field(tmp_path):
    (tmp_path / "algo-07.yaml").write_text(
        "question: algo-07\nmisconceptions:\n- id: ratio-against-reference\n  statement: s\n"
        "  correction: c\n  sources: [{ref: 'arXiv:1707.06347', supports: x}]\n"
        "  cues: {en: [a b], zh: [甲乙]}\n  assertions: [one, two]\n  denials: [nope, never]\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"(?s)algo-07\.yaml.*assertions"):
        load_misconception_drafts(tmp_path)
