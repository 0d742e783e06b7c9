"""Naming the wrong member of a family (k1 for k3, slime for AReaL, TP for EP) credits nothing for
a point about the right one; naming both, or contrasting them, still can."""

from __future__ import annotations

import pytest

from agent.judge.siblings import equated, members, names_a_sibling_instead, sibling_swapped_in
from knowledge.bank import load_bank

BANK = load_bank()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tensor, pipeline, context/sequence and expert parallelism", {"tp", "pp", "cp", "ep"}),
        ("张量、流水线和专家并行", {"tp", "pp", "ep"}),
        ("the expert weights are replicated with data parallelism", {"dp"}),
        ("ep shards whole experts", {"ep"}),
    ],
)
def test_parallelism_is_read_in_lists_and_abbreviations(text, expected):
    assert members(text)["parallelism"] == expected


def test_kimi_model_names_are_not_kl_estimators():
    assert "kl-estimator" not in members("kimi k1.5 partial rollouts and kimi k2 thinking")
    assert members("k3 is unbiased, k1 is not")["kl-estimator"] == {"k1", "k3"}


@pytest.mark.parametrize(
    ("qid", "point", "sentence", "swapped"),
    [
        ("algo-08", "k3-estimator", "GRPO 用的是 k1 估计器，它在每个 token 上都是非负的。", True),
        ("algo-08", "k3-estimator", "GRPO 用的是 k3 估计器，它在每个 token 上都是非负的。", False),
        ("algo-08", "k3-estimator", "Unlike k1, the estimator GRPO uses is non-negative per token.", False),
        ("infra-13", "areal-sync-is-the-problem", "slime blames synchronous waiting on the long tail.", True),
        ("infra-13", "areal-sync-is-the-problem", "AReaL blames synchronous waiting on the long tail.", False),
        ("infra-10", "ep-shards-experts", "Tensor parallelism puts whole experts on different GPUs.", True),
        ("infra-10", "ep-shards-experts", "Each GPU holds whole experts and tokens travel to them.", False),
        (
            "algo-08",
            "kl-in-loss",
            "In practice the per-token KL is subtracted from the reward before the advantages.",
            True,
        ),
        ("algo-08", "kl-in-loss", "实际实现里是把每个 token 的 KL 从 reward 里减掉，再算 advantage。", True),
        ("algo-08", "kl-in-loss", "GRPO puts the KL in the loss rather than in the reward.", False),
        (
            "algo-08",
            "kl-in-loss",
            "GRPO adds the KL to the loss with a small beta, so advantages stay reward-only.",
            False,
        ),
        ("algo-08", "kl-in-loss", "GRPO 的 KL 是单独加在 loss 里的，乘一个 β。", False),
    ],
)
def test_a_sibling_named_instead_of_the_points_own_member(qid, point, sentence, swapped):
    assert names_a_sibling_instead(BANK[qid].key_point(point), sentence) is swapped


def test_a_system_cited_as_an_example_is_not_what_the_point_is_about():
    """infra-14's staleness point cites AReaL's eta as one example; verl's one-step overlap is another."""
    point = BANK["infra-14"].key_point("bounding-staleness")
    assert "areal" in point.statement.lower()
    assert not names_a_sibling_instead(point, "verl has one-step off-policy: generation runs one step ahead.")


@pytest.mark.parametrize(
    ("sentence", "families"),
    [
        ("The reference model is the old policy from the previous iteration.", {"anchor-policy"}),
        ("π_ref = π_old, so the KL keeps each step small.", {"anchor-policy"}),
        ("参考模型就是旧策略。", {"anchor-policy"}),
        ("π_ref and π_old are the same model here.", {"anchor-policy"}),
        ("TP 和 EP 一样，都要 all-reduce。", {"parallelism"}),
        ("The reference model is the frozen SFT checkpoint, not the old policy.", set()),
        ("The KL pulls toward the reference model while clipping bounds the ratio to the old policy.", set()),
        ("k3 has lower variance than k1.", set()),
    ],
)
def test_a_sentence_that_makes_two_members_one(sentence, families):
    assert equated(sentence) == families


def test_making_the_reference_the_old_policy_credits_nothing_about_the_two():
    """A user trial's bluff was credited as the point that tells them apart (algo-08)."""
    point = BANK["algo-08"].key_point("kl-ref-vs-trust-region")
    assert names_a_sibling_instead(point, "The reference model is the old policy, so the KL keeps each step small.")
    assert not names_a_sibling_instead(
        point, "The reference KL is not the trust region: each step is bounded by clipping the ratio to the old policy."
    )


def test_the_kl_subtracted_from_the_reward_is_challenged_not_credited_as_the_kl_in_the_loss(scorer):
    """A user trial (algo-08): the sentence has every word of the point that sets it aside, and was
    credited as that point and acknowledged."""
    question = BANK["algo-08"]
    answer = (
        "GRPO keeps the policy near the reference model with a KL penalty. In practice the per-token KL is "
        "subtracted from the reward before computing advantages, and it's estimated with k3."
    )
    assessment = scorer.assess(question, answer, None)
    assert "kl-in-loss" not in {e.key_point for e in assessment.covered}
    assert [m.misconception for m in assessment.misconceptions] == ["kl-folded-into-reward"]
    assert "subtracted from the reward" in assessment.misconceptions[0].quote
    right = scorer.assess(
        question,
        "Unlike InstructGPT-style PPO, which subtracts the KL from the reward, GRPO adds it as a separate "
        "beta-weighted term in the loss, so the advantages stay reward-only.",
        None,
    )
    assert "kl-in-loss" in {e.key_point for e in right.covered}
    assert not right.misconceptions


@pytest.mark.parametrize(
    ("question", "wrong", "about_the_other", "about_the_subject"),
    [
        (
            "algo-08",
            "kl-folded-into-reward",
            # A drill trial's correct answer, capped at depth 0 as *GRPO folds the KL into the reward*.
            "In classic RLHF PPO the KL is folded into the reward, so the KL goes through GAE into the advantage.",
            "GRPO folds the KL into the reward before computing the group advantages.",
        ),
        (
            "algo-05",
            "grpo-uses-gae",
            "PPO computes per-token advantages with GAE from the critic's values.",
            "GRPO computes per-token advantages with GAE from the critic's values.",
        ),
    ],
)
def test_a_wrong_claim_that_its_subject_is_like_another_algorithm_is_not_charged_to_that_one(
    scorer, question, wrong, about_the_other, about_the_subject
):
    """What the claim says of its subject ("GRPO ..., as PPO does") is true of the algorithm it is
    compared with: a sentence about that one alone is right."""
    assert wrong not in {m.misconception for m in scorer.assess(BANK[question], about_the_other, None).misconceptions}
    assert wrong in {m.misconception for m in scorer.assess(BANK[question], about_the_subject, None).misconceptions}


def test_the_trial_answer_on_where_the_kl_goes_is_credited_not_capped(scorer):
    answer = (
        "In classic RLHF PPO the KL is folded into the reward, so the KL goes through GAE into the advantage. "
        "GRPO instead adds beta*KL directly to the loss as a separate term, so the group advantage is computed "
        "from the raw reward only."
    )
    result = scorer.assess(BANK["algo-08"], answer, None)
    assert result.misconceptions == [] and "kl-in-loss" in {e.key_point for e in result.covered}, result


OPD = BANK["algo-17"]


@pytest.mark.parametrize(
    ("sentence", "swapped"),
    [
        ("用 teacher 和 student 之间的 forward KL，也就是 KL(π_teacher || π_student) 作为 per-token 的 loss。", True),
        ("OPD minimises the forward KL from the teacher to the student on every token.", True),
        ("OPD minimises the reverse KL, KL(student || teacher), on the student's own samples.", False),
        # Set against each other on purpose: no swap.
        ("Unlike classic distillation's forward KL, OPD minimises the reverse KL.", False),
        ("Forward KL 反而需要从 teacher 分布采样（或者在全词表上算 teacher 的分布）。", False),
    ],
)
def test_a_point_made_with_the_sibling_a_misconception_names_is_that_misconception(sentence, swapped):
    point, wrong = (
        OPD.key_point("reverse-kl-objective"),
        next(m for m in OPD.misconceptions if m.id == "opd-forward-kl"),
    )
    assert sibling_swapped_in(point, wrong, sentence) is swapped


def test_a_trials_forward_kl_for_opd_is_challenged_and_credits_no_objective(scorer):
    """A blind trial (twenty-second session): the forward-KL sentence went unchallenged (the
    misconception's reader put it at 0.39) and the report credited the reverse-KL objective."""
    answer = (
        "OPD 里 student 自己采样，teacher 给每个 token 打分。"
        "用 teacher 和 student 之间的 forward KL，也就是 KL(π_teacher || π_student) 作为 per-token 的 loss。"
    )
    assessment = scorer.assess(OPD, answer, None)
    assert "opd-forward-kl" in {m.misconception for m in assessment.misconceptions}
    assert "reverse-kl-objective" not in {e.key_point for e in assessment.covered}
    right = "OPD 让 student 自己采样，在这些样本上按 token 最小化 reverse KL，也就是 KL(π_student || π_teacher)。"
    assert "opd-forward-kl" not in {m.misconception for m in scorer.assess(OPD, right, None).misconceptions}


@pytest.mark.parametrize("between", ["", "反而"])
def test_the_sibling_set_beside_the_point_made_right_is_no_swap(scorer, between):
    """Blind trial 34: the candidate's correction named forward KL as what classic distillation
    needs, after writing the reverse KL out, and was charged with *OPD minimises forward KL* at depth 0."""
    answer = (
        "序列是从 student π_θ 采样的，每个 token 的 loss log π_θ − log π_T 在 student 样本上取期望，"
        "估计的是 reverse KL：KL(π_θ‖π_teacher)。"
        f"Forward KL {between}需要从 teacher 分布采样（或者在全词表上算 teacher 的分布），那更接近 SFT / 传统 logit 蒸馏。"
    )
    assessment = scorer.assess(OPD, answer, None)
    assert assessment.misconceptions == []
    assert "reverse-kl-objective" in {e.key_point for e in assessment.covered}
    # The same sibling sentence beside a point credited on words that name no direction is still the swap.
    bluff = (
        "OPD 本质上是把 teacher 当作一个 dense 的 per-token reward。"
        "它的 per-token loss 是 forward KL，即 KL(π_teacher‖π_student)，在 student 的采样上计算，所以是 mode-covering 的。"
    )
    assert "opd-forward-kl" in {m.misconception for m in scorer.assess(OPD, bluff, None).misconceptions}
