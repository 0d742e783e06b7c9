"""Figures of named things (`figures` in knowledge/facts.yaml): a sentence that gives the thing
another number is a wrong claim, whatever right figures stand beside it (blind trials 33 and 35:
inference MFU on 6N, DeepSeek-V3 with 16 routed experts per token, both scored as expert answers)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent.judge.known_figures import misstated_figures
from common.errors import InputError
from knowledge.bank import load_bank
from knowledge.facts import figure_id, load_facts

BANK = load_bank()
EXPERTS = figure_id("deepseek-v3-experts-per-token")
FLOPS = figure_id("inference-flops-per-token")
E4M3, E5M2 = figure_id("e4m3-max"), figure_id("e5m2-max")
BLOCK = figure_id("vllm-default-block-size")
SHARE = figure_id("v32-post-training-share")


@pytest.mark.parametrize(
    "sentence, wrong",
    [
        (
            "比如 DeepSeek-V3 有 256 个 routed expert，每个 token 激活其中 16 个再加 1 个 shared expert，总参数 671B 但每个 token 只激活 37B。",
            [EXPERTS],
        ),
        ("DeepSeek-V3 routes each token to the top-16 experts.", [EXPERTS]),
        ("DeepSeek-V3 has 64 routed experts with top-2 routing.", [EXPERTS]),
        ("DeepSeek-V3 activates 4 routed experts per token.", [EXPERTS]),
        ("I compute MFU as 6 x N_params x generated tokens per second divided by the GPU's peak FLOPs.", [FLOPS]),
        ("推理 MFU 用 6N 乘每秒生成的 token 数除以峰值算力。", [FLOPS]),
        # Blind trial 36: FP16's maximum given to E5M2, beside E4M3's right one (thousands with a comma)
        (
            "E4M3 (max 448, more mantissa) is used for weights and activations in the forward pass, E5M2 (max 65,504, "
            "more range) for gradients in the backward pass.",
            [E5M2],
        ),
        ("E4M3 的最大可表示值是 57344，尾数多一位所以精度更高。", [E4M3]),
        ("E4M3 reaches up to 57344 while E5M2 tops out at 448.", [E4M3, E5M2]),
        ("E4M3 (max 448) for the forward, E5M2 (max 57,344) for gradients.", []),
        ("FP16's max is 65504 while E5M2 tops out at 57344.", []),
        ("E5M2 keeps FP16's 5 exponent bits, so FP16's max 65,504 is close to E5M2's.", []),
        # Blind trial 37: vLLM's default block given 256 tokens, beside SGLang's right page size
        (
            "vLLM's PagedAttention stores KV in fixed-size blocks, 256 tokens per block by default, while SGLang's "
            "RadixAttention keeps a radix tree at token granularity (page size 1 by default).",
            [BLOCK],
        ),
        ("vLLM 默认每个 block 存 256 个 token。", [BLOCK]),
        ("vLLM's PagedAttention stores KV in blocks of 16 tokens by default.", []),
        ("vLLM uses blocks of 32 tokens for this model.", []),  # a setting, not the default
        ("By default vLLM's block_size is 16, while SGLang's page size defaults to 1.", []),
        # Blind trial 41: V3.2's post-training budget given a tenth of its floor; the floor is no ceiling
        (
            "The V3.2 paper is mostly about scaling RL: they spent roughly 1% of the pretraining compute on RL "
            "post-training, already much more than earlier models.",
            [SHARE],
        ),
        ("V3.2 的 RL 后训练只用了预训练算力的 1%。", [SHARE]),
        ("V3.2 spent more than 10% of its pretraining compute on post-training.", []),
        ("V3.2 的后训练算力超过预训练成本的 10%。", []),
        ("V3.2 put about 15% of the pretraining compute into RL.", []),
        # right figures, rivals with their own, questions and refusals
        ("DeepSeek-V3 has 256 routed experts and activates 8 of them per token plus a shared one.", []),
        ("DeepSeek-V3 每个 token 激活 8 个 routed expert，总参数 671B，激活 37B。", []),
        ("DeepSeek-V3 activates 37B parameters per token.", []),
        ("Mixtral uses top-2, while DeepSeek-V3 uses top-8.", []),
        ("Does DeepSeek-V3 route each token to the top-16 experts?", []),
        ("DeepSeek-V3 uses top-8, not top-16.", []),
        ("For decoding, MFU = 2N x tokens/s / peak FLOPs.", []),
        ("Training costs 6N FLOPs per token and inference 2N.", []),
        ("推理 MFU 用 2N 乘每秒 token 数除以峰值算力。", []),
        ("Decoding 64 sequences with 2 x N GPUs is enough.", []),
    ],
)
def test_a_figure_given_another_number_is_found(sentence, wrong):
    assert misstated_figures(sentence) == wrong


def test_a_misstated_figure_is_a_wrong_claim_of_every_question_with_the_right_figure():
    for question in (BANK["infra-10"], BANK["algo-01"]):
        wrong = question.misconception(EXPERTS)
        assert "8" in wrong.correction and "256" in wrong.correction
        assert "8 个" in question.correction_in(wrong.id, "said", "zh")


def test_our_own_text_misstates_no_figure():
    """Notes, model answers, statements, hints and corrections give the figures right."""
    from agent.text import sentences
    from knowledge.bank import NOTES_DIR

    texts = [p.read_text(encoding="utf-8") for p in sorted(NOTES_DIR.glob("*.md"))]
    for question in BANK.values():
        texts += [question.model_answer, question.model_answer_zh or ""]
        for kp in question.key_points:
            texts += [kp.statement, kp.statement_zh or "", *(h.en + "\n" + h.zh for h in kp.hints)]
    assert [s for text in texts for s in sentences(text) if misstated_figures(s)] == []


def test_a_wrong_maximum_beside_the_layouts_swapped_is_one_confusion(scorer):
    """ "E4M3 的最大可表示值是 57344" gives E4M3 E5M2's maximum: with the range swapped in the same
    sentence, one confusion (a level lost where the rest reaches reasoning), not two wrong claims."""
    from agent.judge.scoring import distinct_wrong_claims

    sentence = "E4M3 的最大可表示值是 57344，动态范围更大，所以反向的梯度也用 E4M3。"
    hits = scorer.assess(BANK["infra-03"], sentence, None).misconceptions
    assert {figure_id("e4m3-max"), "misattributed-e5m2-wider-range"} <= {h.misconception for h in hits}
    assert distinct_wrong_claims(hits) == 1


FP8_ANSWER = (
    "INT8 is an integer format: 256 uniformly spaced levels, so you need a scale per tensor, per channel or per "
    "group, and it handles outliers poorly. FP8 has exponent bits, so relative precision is roughly constant across "
    "magnitudes and the dynamic range is much wider: E4M3 (max 448, more mantissa) is used for weights and "
    "activations in the forward pass, E5M2 (max {e5m2}, more range) for gradients in the backward pass. For "
    "training, BF16 with FP32 master weights is the default and FP8 mixed precision is increasingly used at scale. "
    "For inference, INT8/INT4 weight-only (GPTQ, AWQ) and W8A8 are mature, and FP8 W8A8 is now preferred on Hopper "
    "since it needs little calibration and keeps accuracy."
)


def test_one_wrong_figure_costs_a_level_and_not_what_its_sentence_says_besides(scorer):
    """Blind trial 36's plant (FP16's 65,504 given as E5M2's maximum) sits in the sentence that makes
    the range-against-precision point: the point stands, the answer loses a level and is challenged."""
    question = BANK["infra-03"]
    right = scorer.assess(question, FP8_ANSWER.format(e5m2="57,344"), None)
    wrong = scorer.assess(question, FP8_ANSWER.format(e5m2="65,504"), None)
    assert right.misconceptions == [] and right.depth >= 3
    assert [m.misconception for m in wrong.misconceptions] == [E5M2]
    assert wrong.depth == right.depth - 1
    quote = wrong.misconceptions[0].quote
    assert any(e.quote == quote for e in wrong.covered), "the range point its sentence makes stays credited"


def test_a_figure_pattern_without_a_place_for_the_number_names_the_figure(tmp_path: Path):
    figure = load_facts().figures[0].model_dump(exclude_none=True)
    figure["says"] = ["top-k routing"]
    bad = tmp_path / "facts.yaml"
    bad.write_text(yaml.safe_dump({"groups": [], "figures": [figure]}, allow_unicode=True), encoding="utf-8")
    with pytest.raises(InputError, match=r"facts\.yaml: figures\.0: .*top-k routing.*no \{n\}"):
        load_facts.__wrapped__(bad)
