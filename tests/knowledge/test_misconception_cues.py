"""Misconception cues must not fire on correct statements (issue 14), and still catch the misconceptions.

A cue that fires on a true sentence punishes a correct candidate: the answer is capped at recall and
the report "corrects" them. The correct statements below are the cases the review found, matched with
the scorer's own matcher (`agent.text.asserts`).
"""

from __future__ import annotations

import pytest

from agent.text import asserts
from knowledge.bank import load_bank

CORRECT = [
    # A loss written for minimisation takes the max of the negated terms.
    ("algo-07", "ppo-takes-max", "Written as a loss to minimise, PPO takes the max of the two negated terms."),
    ("algo-07", "ppo-takes-max", "In loss form you take the max of the two: L = max(-r*A, -clip(r)*A)."),
    ("algo-07", "ppo-takes-max", "The loss is the larger of the two negated surrogate terms."),
    ("algo-07", "ppo-takes-max", "写成要最小化的 loss 时，取两个取负之后的项中较大的那个。"),
    ("algo-07", "ppo-takes-max", "loss 形式下是对两个负项取 max，等价于对目标取 min。"),
    # PipelineRL's own finding.
    ("infra-09", "no-difference", "PipelineRL found no big performance difference from keeping the stale KV cache."),
    (
        "infra-09",
        "no-difference",
        "In PipelineRL's experiments the stale cache made no difference to final accuracy, but it is still off-policy.",
    ),
    ("infra-09", "no-difference", "PipelineRL 报告说保留旧 KV 和重算在最终性能上差不多。"),
    # Request concurrency changing the batch is the batch-invariance thesis; a seed alone is not enough.
    (
        "infra-12",
        "temp0-is-deterministic",
        "Fix the seed and the output can still change, because the batch size changes with server load.",
    ),
    ("infra-12", "temp0-is-deterministic", "Even if you set temperature to 0, the logits still depend on the batch."),
    (
        "infra-12",
        "atomics-root-cause",
        "There is no race condition in the forward kernels; request concurrency changes the batch size.",
    ),
    (
        "infra-12",
        "atomics-root-cause",
        "The race condition that matters is between requests: whichever arrive together form the batch.",
    ),
    ("infra-12", "atomics-root-cause", "请求并发导致 batch 大小变化，kernel 的归约顺序随之改变。"),
    # Disk transports exist in slime.
    (
        "infra-15",
        "weights-via-disk",
        "With external engines slime can also move weights through disk, and SGLang reloads them from disk.",
    ),
    ("infra-15", "weights-via-disk", "slime 的 external engine 模式可以通过磁盘同步权重。"),
]

STILL_CAUGHT = [
    ("algo-07", "ppo-takes-max", "PPO takes the max of the clipped and unclipped objective."),
    ("algo-07", "ppo-takes-max", "PPO 是在裁剪后的目标和未裁剪的目标之间取最大值。"),
    ("infra-09", "no-difference", "Keeping or discarding the cache makes no real difference either way."),
    ("infra-12", "temp0-is-deterministic", "Temperature 0 makes it deterministic."),
    ("infra-12", "atomics-root-cause", "The nondeterminism is caused by atomics in the forward pass."),
    ("infra-15", "weights-via-disk", "slime saves a checkpoint after every step and SGLang reloads it from disk."),
    ("infra-15", "weights-via-disk", "slime 每训完一步就存一个 checkpoint，SGLang 再从磁盘 reload。"),
]


@pytest.fixture(scope="module")
def bank():
    return load_bank()


@pytest.mark.parametrize(("qid", "misconception", "sentence"), CORRECT)
def test_a_correct_statement_is_not_flagged(bank, qid, misconception, sentence):
    question = bank[qid]
    flagged = [m.id for m in question.misconceptions if asserts(sentence, m.cues.all())]
    assert flagged == [], f"{sentence!r} is correct but flagged as {flagged}"


@pytest.mark.parametrize(("qid", "misconception", "sentence"), STILL_CAUGHT)
def test_the_misconception_itself_is_still_flagged(bank, qid, misconception, sentence):
    assert asserts(sentence, bank[qid].misconception(misconception).cues.all())
