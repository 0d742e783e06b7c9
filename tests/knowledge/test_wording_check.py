"""`bank validate` checks that every wording keeps the question's parts."""

from __future__ import annotations

from pathlib import Path

import yaml

from knowledge.bank import BANK_DIR, validate_bank
from knowledge.models import Question
from knowledge.wording_check import dropped_parts

PARTS = [
    {"id": "how-clipping-works", "en": "How clipping works in PPO", "zh": "PPO 的 clipping 如何工作"},
    {
        "id": "why-min",
        "en": "Why take the minimum of the clipped and unclipped objectives",
        "zh": "为什么在裁剪和未裁剪的目标之间取最小值",
    },
    {"id": "no-clipping", "en": "What happens if clipping is removed", "zh": "去掉 clipping 会发生什么"},
    {"id": "cispo-difference", "en": "How CISPO differs", "zh": "CISPO 有什么不同"},
]
POINT_PARTS = {
    "clip-the-ratio": "how-clipping-works",
    "cispo-clips-weight": "cispo-difference",
    "zero-gradient-cases": "how-clipping-works",
    "why-min-pessimistic": "why-min",
    "no-clip-failure": "no-clipping",
    "cispo-motivation-tradeoff": "cispo-difference",
    "trust-region-and-variants": "how-clipping-works",
    "cispo-details-figures": "cispo-difference",
}
KEEPS_ALL = [
    {
        "en": "Explain the mechanics of PPO's clipping, why the objective takes the min of the clipped and unclipped "
        "terms, what goes wrong without clipping, and how CISPO's approach differs.",
        "zh": "讲讲 PPO 里 clipping 的机制；为什么目标要对裁剪前后两项取 min；如果不做 clipping 会出什么问题；CISPO 的做法又有什么区别。",
    },
    {
        "en": "Walk me through PPO clipping: what does it actually do, why the min over the clipped and unclipped "
        "surrogates, what would removing it cause, and what does CISPO change?",
        "zh": "PPO 的裁剪具体在裁什么？为什么要在裁剪项和未裁剪项里取较小的那个？把裁剪拿掉会怎样？CISPO 跟它比改了什么？",
    },
]
DROPS_CISPO = {
    "en": "Walk me through PPO clipping: what does it actually do, why the min over the clipped and "
    "unclipped surrogates, and what would removing it cause?",
    "zh": "PPO 的裁剪具体在裁什么？为什么要在裁剪项和未裁剪项里取较小的那个？把裁剪拿掉会怎样？",
}


def algo_07_with(wordings: list[dict]) -> dict:
    data = yaml.safe_load((BANK_DIR / "algo-07.yaml").read_text(encoding="utf-8"))
    data["parts"] = PARTS
    for point in data["key_points"]:
        point["part"] = POINT_PARTS[point["id"]]
    data["wordings"] = wordings
    return data


def test_wordings_that_ask_every_part_pass():
    assert dropped_parts(Question.model_validate(algo_07_with(KEEPS_ALL))) == []


def test_a_wording_that_drops_a_part_is_named_with_its_file_line_and_field(tmp_path: Path):
    path = tmp_path / "algo-07.yaml"
    path.write_text(
        yaml.safe_dump(algo_07_with([KEEPS_ALL[0], DROPS_CISPO]), allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
    bank, problems = validate_bank(path)
    assert "algo-07" in bank, "a wording problem does not take the question out"
    assert [p.message for p in problems] == [
        "field wordings.1.en: does not ask part 'cispo-difference' (How CISPO differs)",
        "field wordings.1.zh: does not ask part 'cispo-difference' (CISPO 有什么不同)",
    ]
    lines = path.read_text(encoding="utf-8").splitlines()
    assert all(lines[p.line - 1].strip().startswith(("en:", "zh:", "- en:")) for p in problems)
    assert problems[0].line < problems[1].line
