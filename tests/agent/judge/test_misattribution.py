"""Terms given to the wrong owner (issue 12: fluent wrong answers): found where a sentence binds them,
left alone where it negates, compares, shares or asks, and charged like any misconception."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from agent.brains.request import WriteRequest
from agent.brains.wording import phrase
from agent.interview.policy import Limits, decide
from agent.judge.misattribution import misattributions_in, puts_right, rightly_owned_in
from agent.state import CandidateAction, Flag, QuestionProgress
from common.errors import InputError
from knowledge.bank import load_bank
from knowledge.facts import challenges, confusion, load_facts, misattributions

BANK = load_bank()


@pytest.mark.parametrize(
    "sentence, given",
    [
        ("At its heart vLLM is RadixAttention, a prefix tree over cached tokens.", {("radixattention", "vLLM")}),
        ("SGLang 的关键设计就是 PagedAttention。", {("pagedattention", "SGLang")}),
        ("GSPO was proposed by the DeepSeek team.", {("deepseek", "GSPO")}),
        ("slime 是蚂蚁开源的框架。", {("蚂蚁", "slime")}),
        ("verl is Zhipu's framework.", {("zhipu", "verl")}),
        ("CISPO 来自字节跳动。", {("字节跳动", "CISPO")}),
        ("GSPO keeps a token-level ratio but clips it harder.", {("token-level ratio", "GSPO")}),
        (
            "GRPO 的 KL 惩罚用的是 forward KL，也就是让策略覆盖参考模型的所有模式。",
            {("forward kl", "the KL penalty of RL fine-tuning (PPO, GRPO)")},
        ),
        ("SFT is mode-seeking, so it loses diversity.", {("mode-seeking", "maximum likelihood (SFT, cross-entropy)")}),
        ("GSPO also helps, because its token-level ratio is steadier.", {("token-level ratio", "GSPO")}),
        ("RadixAttention is vLLM's main idea.", {("radixattention", "vLLM")}),
        # A user trial: the directions swapped were acknowledged "Correct" and credited.
        (
            "KL(q||p) is mode-covering: the model spreads out over all the modes of p, while KL(p||q) is mode-seeking.",
            {
                ("mode-covering", "the reverse KL KL(q || p), model first"),
                ("mode-seeking", "the forward KL KL(p || q), data first"),
            },
        ),
        (
            "而 KL(p||q) 是 mode-seeking 的，只会锁定一个峰。",
            {("mode-seeking", "the forward KL KL(p || q), data first")},
        ),
        ("Unlike SGLang, vLLM uses RadixAttention.", {("radixattention", "vLLM")}),
        # A user trial (infra-03), in both languages: the FP8 layouts' range and precision swapped.
        (
            "E4M3 has the larger dynamic range, so gradients use E4M3.",
            {("larger dynamic range", "E4M3 (4 exponent bits, 3 mantissa bits)")},
        ),
        ("E4M3 的动态范围更大，所以训练时梯度用 E4M3。", {("动态范围更大", "E4M3 (4 exponent bits, 3 mantissa bits)")}),
        ("E5M2 has higher precision than E4M3.", {("higher precision", "E5M2 (5 exponent bits, 2 mantissa bits)")}),
        # Trials (infra-04, infra-10): the phases' bottlenecks swapped, credited and scored 4.
        (
            "Decode is the compute-bound phase, while prefill is memory-bound.",
            {("compute-bound", "decode"), ("memory-bound", "prefill")},
        ),
        ("因为 decode 本身是 compute-bound 的，每生成一个 token 都要做完整的矩阵乘。", {("compute-bound", "decode")}),
        ("Prefill is memory-bandwidth-bound because the prompt is long.", {("memory-bandwidth-bound", "prefill")}),
        # A drill trial (algo-05, infra-01): GAE's extremes swapped and ZeRO-3 given ZeRO-1's sharding,
        # each said twice and credited as the right point.
        (
            "lambda=1 的时候就退化成一步的 TD(0) advantage，方差最小、偏差最大，lambda=0 的时候是 Monte Carlo 回报减 baseline",
            {("td(0)", "λ = 1"), ("monte carlo", "λ = 0")},
        ),
        ("lambda = 1 is the one-step TD(0) advantage with the lowest variance.", {("td(0)", "λ = 1")}),
        (
            "To save memory you use ZeRO-3, which only shards the optimizer states across the data-parallel ranks.",
            {("only shards the optimizer states", "ZeRO-3")},
        ),
        ("ZeRO-3 只切优化器状态，参数和梯度不切。", {("只切优化器状态", "ZeRO-3")}),
        # The twenty-sixth session's blind trial: FP8's layouts swapped in Chinese ("FP8 的 E5M2" is a
        # possessive, so its first clause binds nothing), and R1-Zero given InstructGPT's recipe, its
        # "each solution" no longer read as "each of them".
        (
            "E4M3 指数位多、动态范围大，所以反向的梯度用 E4M3。",
            {("指数位多", "E4M3 (4 exponent bits, 3 mantissa bits)")},
        ),
        ("E5M2 尾数位更多、精度更高。", {("尾数位更多", "E5M2 (5 exponent bits, 2 mantissa bits)")}),
        (
            "DeepSeek-R1-Zero was trained with PPO against a learned neural reward model that scored whether each solution was correct.",
            {("ppo", "DeepSeek-R1-Zero")},
        ),
        ("R1-Zero 是用 PPO 训练的，奖励来自一个神经网络奖励模型。", {("ppo", "DeepSeek-R1-Zero")}),
        ("InstructGPT used rule-based rewards.", {("rule-based rewards", "InstructGPT")}),
        # The twenty-sixth session's second trial: an origin after a place ("在 V3.2 里提出的") or before
        # an English verb ("which ByteDance built"), and Mooncake given to ByteDance.
        ("GSPO 是 DeepSeek 在 V3.2 里提出的，sequence-level ratio 就是为了 MoE 稳定。", {("deepseek", "GSPO")}),
        (
            "Mooncake, which ByteDance built for Doubao, pools the KV cache in CPU memory and SSD.",
            {("bytedance", "Mooncake")},
        ),
        # The twenty-sixth session's trial: ring attention with the queries passed round (the reverse).
        (
            "In ring attention the Q blocks are passed around the ring while the KV blocks stay local.",
            {("passed around the ring", "the query blocks"), ("stay local", "the key/value blocks")},
        ),
        (
            "ring attention 里 Q 块沿环传递，KV 块留在本地。",
            {("沿环传递", "the query blocks"), ("留在本地", "the key/value blocks")},
        ),
        # Roles played the wrong way round (binds_by: role), user trials' plants e5 read as the right claim.
        (
            "the rule of thumb is to put pipeline parallelism inside the node on NVLink and stretch tensor "
            "parallelism across nodes over InfiniBand, since PP is the chatty one",
            {("inside the node", "pipeline parallelism"), ("across nodes", "tensor parallelism")},
        ),
        (
            "R3（Rollout Routing Replay）是在训练引擎（Megatron/FSDP）前向的时候把每个 token 选中的 expert 记下来，"
            "然后推理端 vLLM 生成时按这个路由重放",
            {("记下", "the training engine"), ("重放", "the inference engine")},
        ),
        (
            "AReaL's decoupled PPO ... the clip trust region is centred on the behaviour policy that generated "
            "the tokens, and the proximal policy is the one you importance-weight against",
            {("centred on", "the behaviour policy π_behav"), ("importance-weight", "the proximal policy π_prox")},
        ),
        # Blind trial 34: the lab named with its team ("ByteDance Seed's"), before the possessive.
        (
            "AReaL, ByteDance Seed's fully asynchronous RL system, uses a decoupled PPO objective.",
            {("bytedance seed", "AReaL")},
        ),
        ("AReaL 是字节 Seed 开源的异步系统。", {("字节 seed", "AReaL")}),
        # the second clause names no routing: R3's roles are read only in a clause about routing
        ("routing 是在 training 端录的，在 inference 端回放的。", {("录的", "the training engine")}),
        ("PP 放在节点内走 NVLink，TP 跨节点。", {("节点内", "pipeline parallelism"), ("跨节点", "tensor parallelism")}),
        # Blind trial 35: a lab that owns none of the group's names (an outsider) is no owner either.
        ("ProRL, the prolonged-RL paper from Google DeepMind, trained a 1.5B model.", {("google deepmind", "ProRL")}),
        ("AReaL 是英伟达开源的异步框架。", {("英伟达", "AReaL")}),
        ("PPO was introduced by DeepMind in 2017.", {("deepmind", "PPO")}),
        (
            "Clip-Higher, introduced in the DeepSeek-R1 paper, raises ε_high to 0.28.",
            {("deepseek-r1 paper", "Clip-Higher")},
        ),
        ("Dr. GRPO came from DeepSeek.", {("deepseek", "Dr. GRPO")}),
        # Blind trial 37: "all-wrong groups" describes groups; it does not call the claim wrong.
        (
            "DeepSeek's DAPO paper uses 16 samples per prompt and filters all-correct and all-wrong groups.",
            {("deepseek", "DAPO")},
        ),
        ("DAPO 是 DeepSeek 提出的，会过滤全对或全部错误的组。", {("deepseek", "DAPO")}),
        # Blind trial 37 (infra-10): the two all-to-alls of an MoE layer swapped
        (
            "每个 MoE 层有两次 all-to-all：dispatch 负责把各 expert 算完的输出送回 token 原来所在的 rank，"
            "combine 负责按 router 的 top-k 结果把 token 发到持有对应 expert 的 GPU 上。",
            {("送回", "dispatch"), ("发到持有", "combine")},
        ),
        (
            "In the MoE layer, dispatch sends the outputs back to each token's home rank, and combine sends each "
            "token to the GPUs holding its experts.",
            {("sends the outputs back", "dispatch"), ("sends each token to", "combine")},
        ),
        # Blind trial 38 (algo-13): Dr. GRPO's two biases swapped; "过难或过易" is one term, not a
        # claim shared between two owners
        (
            "Dr.GRPO 指出 GRPO 目标里的两个偏置：按回答长度 1/|o_i| 归一化会让模型偏向过难或过易的题目，"
            "而除以组内标准差会让错误回答越写越长，所以两者都去掉。",
            {
                ("过难", "the length normalisation 1/|o_i|"),
                ("越写越长", "the std normalisation (dividing by the group's reward std)"),
            },
        ),
        # a word inside a term is no negation: 不变 in 保持不变
        (
            "DAPO 的 clip-higher 把下界调大，上界保持不变。",
            {("调大", "the lower bound ε_low"), ("保持", "the upper bound ε_high")},
        ),
    ],
)
def test_a_term_given_to_a_rival_is_found(sentence, given):
    assert {(m.term, m.given_to) for m in misattributions_in(sentence)} == given


@pytest.mark.parametrize(
    "sentence",
    [
        "vLLM introduced PagedAttention, and SGLang introduced RadixAttention.",
        "SGLang uses RadixAttention, vLLM uses PagedAttention.",
        "PagedAttention (vLLM) and RadixAttention (SGLang) manage the cache differently.",
        "vLLM does not use RadixAttention; it hashes blocks.",
        "vLLM 没有 RadixAttention，它的前缀缓存靠哈希。",
        "Does vLLM also have something like RadixAttention?",
        "vLLM and SGLang are known for PagedAttention and RadixAttention respectively.",
        "DAPO, proposed as a fix to DeepSeek's GRPO, comes from ByteDance.",
        "DeepSeek-R1 used GRPO, and Qwen3 was trained with GSPO.",
        "DAPO needed half the steps of R1-Zero-Qwen-32B.",
        "Ant's AReaL and ByteDance's verl both run asynchronous rollouts.",
        "slime 是智谱开源的，AReaL 是蚂蚁的。",
        "verl, ByteDance Seed's framework, runs FSDP or Megatron with vLLM or SGLang.",
        "Unlike vLLM, SGLang keeps a radix tree of prefixes.",
        "GSPO replaces GRPO's token-level ratio with a sequence-level ratio over the whole response.",
        "GSPO 丢掉了 token 级的 ratio，改成整条序列一个比率。",
        "GRPO 的 advantage 是 sequence-level 的，广播到每个 token。",
        "SFT minimises the forward KL, which is mass-covering, whereas the KL penalty in RL is a reverse KL.",
        "It is wrong to say SFT is mode-seeking; cross-entropy training is mass-covering.",
        "It is wrong to say DAPO came from DeepSeek.",
        "说 DAPO 来自 DeepSeek 是错误的。",
        "每个 MoE 层有两次 all-to-all：dispatch 负责按 router 的 top-k 结果把 token 发到持有对应 expert 的 GPU 上，combine 负责把输出送回原来的 rank。",
        # both named as a list: the role is the pair's
        "EP uses all-to-all dispatch and combine to send tokens to the ranks holding their experts, not an all-reduce.",
        # blind trial 41: the gap between the two is what the weight corrects, right as said
        "The gap between the stale behaviour policy and that proximal policy is corrected with an importance weight.",
        "CISPO 对每个 token 的权重做裁剪，序列级 ratio 是 GSPO 的做法。",
        "The sequence-level ratio is GSPO's, not CISPO's.",
        # "unlike X," names the side compared with, not the subject.
        "SGLang, unlike vLLM, uses RadixAttention.",
        "SGLang 不同于 vLLM，用的是 RadixAttention。",
        "Reverse KL, unlike forward KL, is mode-seeking.",
        "KL(p||q) is mass-covering, while KL(q||p) is mode-seeking.",
        "正向 KL(p||q) 是 mass-covering 的，反向 KL(q||p) 是 mode-seeking 的。",
        "MLE minimises KL(p||q), which is mass-covering; the KL penalty of RL is reverse, which is mode-seeking.",
        "KL(q||p) is not mass-covering.",
        "E5M2 has a larger range than E4M3, so it carries the gradients.",
        "E4M3 has more precision but E5M2 has the wider range.",
        "Compared with E4M3, E5M2 has a wider range.",
        "E4M3 doesn't have the larger range.",
        "E4M3 的精度更高，E5M2 的动态范围更大。",
        "Prefill is compute-bound and decode is memory-bandwidth-bound, so disaggregation splits them.",
        "decode 阶段是访存密集的，batch 小的时候算力用不满。",
        "Decode is not compute-bound: with a few sequences it is limited by memory bandwidth.",
        "vLLM 和 SGLang 都用 continuous batching。",
        "With λ=0.95 GAE sits between TD(0) and Monte Carlo.",
        "GAE with lambda = 0.95 is between one-step TD and Monte Carlo, trading bias for variance.",
        "λ=0 gives the one-step TD(0) advantage; λ=1 gives the Monte Carlo return minus the value.",
        "λ=0 是 TD(0)，λ=1 是蒙特卡洛回报减 V。",
        "When lambda = 1 you get Monte Carlo, when lambda = 0 you get one-step TD.",
        "ZeRO-1 only shards the optimizer states, ZeRO-2 adds the gradients, and ZeRO-3 shards the parameters too.",
        "ZeRO-3 shards the parameters, gradients and optimizer states across the ranks.",
        "ZeRO-1 只切优化器状态，ZeRO-3 连参数也切。",
        "E4M3 尾数位更多，E5M2 指数位更多。",
        "R1-Zero used GRPO with rule-based rewards instead of a learned reward model.",
        "InstructGPT used PPO with a learned reward model, while R1-Zero used GRPO.",
        "R1-Zero did not use a neural reward model.",
        "R1-Zero's GRPO keeps the PPO clip but drops the critic.",
        "verl, which ByteDance built, uses HybridFlow.",
        "Kimi 的 Mooncake 把 KV cache 放到 CPU 内存和 SSD。",
        "SGLang uses Mooncake as its transfer engine.",
        "GRPO 是 DeepSeek 在 DeepSeekMath 里提出的。",
        "vLLM and SGLang each use their own KV-cache design, PagedAttention and RadixAttention.",
        "Ring attention keeps the query blocks local and passes the K/V blocks around the ring.",
        "ring attention 里 KV 块沿环传递，Q 块留在本地。",
        "The KV blocks are passed around while the queries stay put.",
        # a lab that uses a system, or whose work it stands on, did not make it
        "verl is used by the Qwen team too.",
        "verl 被 Qwen 团队用来训练模型。",
        "slime is built on NVIDIA's Megatron-LM and SGLang.",
        "ProRL 是 NVIDIA 提出的，PPO 来自 OpenAI。",
        # PPO's variants are not PPO (a gold bluff's "Distributed PPO from DeepMind" is true)
        "DPPO is Distributed PPO from DeepMind.",
        "AReaL's decoupled PPO, from Ant Group, keeps two policies.",
        "DAPO is from ByteDance Seed and Tsinghua.",
        "DAPO and Dr. GRPO kept beta = 0.04 from DeepSeekMath.",
        "Dr.GRPO 和 DAPO 的机制与动机讲对了。",
        "by how they change the advantage (Dr. GRPO, MaxRL), or the loss aggregation over tokens (DAPO, Dr. GRPO)",
        # "rarely" places it by denial (blind trial 38, answering "为什么张量并行很少跨节点")
        "TP 很少跨节点，是因为每层 forward 两次、backward 两次 all-reduce 都在关键路径上",
        "Tensor parallelism rarely spans nodes; pipeline stages do.",
        "按回答长度归一化会让错误回答越写越长，除以组内标准差会让过难或过易的题目被过度加权。",
        "Dividing by the group's reward std over-weights prompts that are too easy or too hard.",
    ],
)
def test_right_negated_compared_or_asked_bindings_are_left_alone(sentence):
    assert misattributions_in(sentence) == []


def test_an_answer_built_on_swapped_owners_shows_nothing_and_is_challenged(scorer):
    answer = "SGLang is built around PagedAttention. The core of vLLM, on the other hand, is RadixAttention."
    result = scorer.assess(BANK["infra-05"], answer, None)
    assert {m.misconception for m in result.misconceptions} == {
        "misattributed-pagedattention",
        "misattributed-radixattention",
    }
    assert result.depth == 0 and Flag.misconception in result.flags
    assert all("SGLang" in m.correction or "vLLM" in m.correction for m in result.misconceptions)


@pytest.mark.parametrize(
    ("swap", "depth"),
    [
        ("vLLM 的核心是 RadixAttention，SGLang 的核心是 PagedAttention。", 1),
        # Over two sentences it stays two wrong claims (counting it once lifted two dev bluffs to 1, gold 0).
        ("SGLang is built around PagedAttention. The core of vLLM, on the other hand, is RadixAttention.", 0),
    ],
)
def test_one_sentence_swapping_two_owners_is_one_confusion(scorer, swap, depth):
    answer = f"Continuous batching lets finished requests leave and new ones join at every decode step. {swap}"
    result = scorer.assess(BANK["infra-05"], answer, None)
    assert len(result.misconceptions) == 2 and result.depth == depth


def test_swaps_of_one_group_are_one_confusion_and_of_two_groups_two():
    hits = [m for s in ("vLLM's core is RadixAttention.", "slime comes from Ant Group.") for m in misattributions_in(s)]
    assert len({confusion(h.misconception) for h in hits}) == 2
    assert confusion("misattributed-pagedattention") == confusion("misattributed-radixattention")
    assert confusion("tp-across-nodes") == confusion("misattributed-tp-inside-node"), "the bank's id for the swap too"


def test_one_swap_caps_the_answer_and_the_follow_up_asks_whose_it_is(scorer):
    answer = (
        "Continuous batching lets finished requests leave and new ones join at every decode step, so the "
        "batch changes all the time and the kernels reduce in a different order, which changes the log-probs "
        "the engine reports compared with the trainer. vLLM's core is RadixAttention."
    )
    question = BANK["infra-05"]
    result = scorer.assess(question, answer, None)
    assert [m.misconception for m in result.misconceptions] == ["misattributed-radixattention"]
    assert result.depth == 1
    decision = decide(question, QuestionProgress(assessment=result), CandidateAction.answer, Limits(follow_ups=3))
    assert decision.challenge == "misattributed-radixattention" or decision.target == "misattributed-radixattention"
    text = phrase(WriteRequest(question, decision, result, (), "en", 1))
    assert "RadixAttention" in text and "vLLM's core is RadixAttention" in text


def test_a_wrong_origin_costs_a_level_but_not_what_its_sentence_says_besides(scorer):
    """Blind trial 35: ProRL given to Google DeepMind in a sentence that also gives its training run
    right. Only the origin is wrong: the run's points stay credited, the answer loses a level."""
    rest = (
        " trained a 1.5B model for over 2,000 RL steps on math, code, STEM and logic puzzles, and pass@1 and pass@k"
        " kept improving. Training stayed stable by keeping entropy up with decoupled clipping and dynamic sampling,"
        " a KL penalty to a reference model, and resetting the reference and optimizer when validation stalled."
        " So I'd think of RL scaling along several axes: number of training steps, diversity and difficulty of"
        " the prompt set, rollout compute (group size, response length), and model size, with the gains largest"
        " where the base model starts weak."
    )
    question = BANK["algo-16"]
    right = scorer.assess(question, "ProRL, NVIDIA's prolonged-RL paper," + rest, None)
    wrong = scorer.assess(question, "ProRL, the prolonged-RL paper from Google DeepMind," + rest, None)
    assert right.misconceptions == [] and right.depth >= 3
    assert [m.misconception for m in wrong.misconceptions] == ["misattributed-algorithm-from-google"]
    assert wrong.depth == right.depth - 1
    first = wrong.misconceptions[0].quote
    assert any(e.quote == first for e in wrong.covered), "the run the origin sentence describes stays credited"


def test_a_swap_the_bank_already_names_is_charged_once(scorer):
    sentence = "MLE minimises the reverse KL, so SFT is mode-seeking."
    assert [m.misconception for m in scorer.assess(BANK["algo-02"], sentence, None).misconceptions] == [
        "mle-is-reverse-kl"
    ]
    elsewhere = {m.misconception for m in scorer.assess(BANK["algo-17"], sentence, None).misconceptions}
    assert "misattributed-rl-reverse-kl" in elsewhere


def test_a_misattribution_is_a_misconception_of_every_question():
    for question in (BANK["algo-07"], BANK["infra-13"]):
        wrong = question.misconception("misattributed-areal-from-ant")
        assert "AReaL" in wrong.correction and "AReaL" in question.correction_in(wrong.id, "said", "zh")
    with pytest.raises(KeyError):
        BANK["algo-07"].misconception("no-such-claim")


def test_every_fact_has_one_owner_among_its_rivals():
    for group in load_facts().groups:
        owned = [name for owner in group.owners for a in owner.owns for name in a.names]
        owned += [name for outsider in group.outsiders for name in outsider.names]
        rivals = [name for owner in group.owners for name in owner.names]
        assert len(owned) == len(set(owned)), group.id
        assert not set(owned) & set(rivals), group.id
    facts = load_facts()
    owned = sum(len(o.owns) for g in facts.groups for o in g.owners)
    outsiders = sum(len(g.outsiders) for g in facts.groups)
    reversals = len(facts.reversed_formulas) + len(facts.trends) + len(facts.figures)
    assert len(misattributions()) == owned + outsiders + reversals, "one wrong claim per fact, ids distinct"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_name_given_to_an_outsider_is_corrected_with_every_owner_and_challenged_without_one(lang):
    """ "ProRL ... from Google DeepMind" (blind trial 35): no owner of the group is Google DeepMind, so
    the correction gives every owner's lab, and the challenge asks for them rather than suggesting one."""
    [swap] = misattributions_in("ProRL, the prolonged-RL paper from Google DeepMind, scaled RL to 2,000 steps.")
    question = BANK["algo-16"]
    wrong = question.misconception(swap.misconception)
    correction = question.correction_in(wrong.id, wrong.correction, lang)
    group = next(g for g in load_facts().groups if g.id == "rl-algorithm-origins")
    assert all(a.named(lang) in correction for o in group.owners for a in o.owns)
    challenge = getattr(challenges()[swap.misconception], lang)
    assert not any(name in challenge.lower() for o in group.owners for a in o.owns for name in a.names)
    assert confusion(swap.misconception) == "rl-algorithm-origins"


def test_a_group_with_outsiders_needs_a_challenge_for_them(tmp_path: Path):
    facts = load_facts()
    group = facts.groups[1].model_dump(exclude_none=True)
    group["outsiders"] = [{"id": "framework-from-somewhere", "name": "Somewhere", "names": ["somewhere"]}]
    group.pop("ask_outsider", None)
    bad = tmp_path / "facts.yaml"
    bad.write_text(yaml.safe_dump({"groups": [group]}, allow_unicode=True), encoding="utf-8")
    with pytest.raises(InputError, match=r"facts\.yaml: groups\.0: .*ask_outsider"):
        load_facts.__wrapped__(bad)


def test_a_broken_facts_file_names_the_file_and_the_field(tmp_path: Path):
    bad = tmp_path / "facts.yaml"
    bad.write_text("groups:\n  - id: engines\n    owners: []\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"facts\.yaml: groups\.0\.what"):
        load_facts.__wrapped__(bad)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_correction_of_a_swap_also_says_what_the_rival_owns(lang):
    """ "CISPO is DeepSeek's method" was corrected only with "DeepSeek (DeepSeekMath) is GRPO's": the
    candidate never learned whose CISPO is (a user trial)."""
    [swap] = misattributions_in("CISPO is DeepSeek's method.")
    question = BANK["algo-13"]
    wrong = question.misconception(swap.misconception)
    correction = question.correction_in(wrong.id, wrong.correction, lang)
    cispo = next(o for g in load_facts().groups for o in g.owners if o.name == "CISPO" and g.binds_by == "origin")
    assert "DeepSeek" in correction and "GRPO" in correction
    assert all(attribute.name in correction for attribute in cispo.owns)


def test_a_correction_opens_a_sentence_and_gives_no_bracket_a_possessive():
    """Blind trial 41: "the wider dynamic range is E5M2 (5 exponent bits, 2 mantissa bits)'s"."""
    for misconception in misattributions().values():
        assert not misconception.correction.startswith(("the ", "a ", "an ")), misconception.correction
        assert ")'s" not in misconception.correction and ")'" not in misconception.correction


def test_a_chinese_challenge_or_correction_names_the_terms_in_chinese():
    """ "你说的这几个目标分别最小化哪个方向的 KL？the forward KL KL(p_data || q)是 mass-covering..." was asked
    in a Chinese session: a term whose English name reads as English has its Chinese one."""
    english_words = re.compile(r"\b(?:the|of|and|bits|team|level|range|precision|first)\b", re.I)
    for misconception_id, challenge in challenges().items():
        assert not english_words.search(challenge.zh), (misconception_id, challenge.zh)
    for misconception in misattributions().values():
        said_in_chinese = f"{misconception.statement_zh} {misconception.correction_zh}"
        assert not english_words.search(said_in_chinese.split("（")[0]), misconception.statement_zh


@pytest.mark.parametrize(
    "sentence",
    [
        "vLLM 和 SGLang 的区别：SGLang 用的是 PagedAttention 管理 KV cache，vLLM 是 RadixAttention，前者做前缀复用。",
        "The difference: SGLang is built on PagedAttention, while vLLM's core is RadixAttention.",
    ],
)
def test_a_swap_is_not_the_evidence_for_the_point_it_gets_wrong(sentence):
    """A trial's swapped owners were challenged as a swap, and quoted in the report as the evidence
    for "vLLM's core is PagedAttention, SGLang's is RadixAttention" (e5 reads a swap as the claim)."""
    from agent.judge.claims import cannot_show, gives_its_terms_away

    question = BANK["infra-05"]
    engines = next(kp for kp in question.key_points if "PagedAttention" in kp.statement)
    assert misattributions_in(sentence)
    assert gives_its_terms_away(engines, sentence) and cannot_show(question, engines, sentence)
    right = (
        sentence.replace("PagedAttention", "@")
        .replace("RadixAttention", "PagedAttention")
        .replace("@", "RadixAttention")
    )
    assert not misattributions_in(right) and not gives_its_terms_away(engines, right)
    other = next(kp for kp in question.key_points if "PagedAttention" not in kp.statement + (kp.statement_zh or ""))
    assert not gives_its_terms_away(other, sentence), "a point that names neither term is not concerned"


def test_an_owner_named_in_the_plural_takes_a_bare_apostrophe():
    sentence = "In ring attention the Q blocks are passed around the ring, the KV blocks stay local."
    assert "misattributed-ring-attention-kv-passed" in {swap.misconception for swap in misattributions_in(sentence)}
    correction = misattributions()["misattributed-ring-attention-kv-passed"].correction
    assert "the key/value blocks' (" in correction and "blocks's" not in correction


@pytest.mark.parametrize(
    "sentence",
    [
        "Tensor parallelism stays within a node on NVLink because it all-reduces in every layer.",
        "TP 放在节点内走 NVLink，因为每一层都要做 all-reduce；PP 跨节点，因为只在 stage 之间传 activation。",
        "The routing decisions are recorded in the rollout engine, 然后训练的时候 replay 回去.",
        "decoupled PPO 里 clip 的中心是 proximal policy，behaviour policy 只通过 π_prox / π_behav 这个 importance weight 进来。",
        # weighed, negated, supposed or reported, not stated
        "I wouldn't stretch TP across nodes the way you can with DP.",
        "TP across nodes would be too slow.",
        "People often think you can extend TP over InfiniBand for memory.",
        "如果过期的 behavior policy 同时当 IS 分母和 clip 中心，数据很旧时更新会出问题。",
        # the name is the object's owner or sits in the object, not where the verb happens
        "Once you replay the rollout's routing in training, the two sides pick the same experts.",
        "两边选的专家也可能不同，所以要把生成时的选择记下来让训练照用。",
        "MoE 的修法包括 routing replay（记录 rollout 时的路由并在训练中重放）。",
        "at training time Megatron plugs those recorded values straight back in.",
        # not about routing: record and replay mean other things
        "The trainer records the loss every step.",
        "Off-policy methods replay rollouts from a replay buffer.",
    ],
)
def test_roles_played_the_right_way_or_not_stated_are_left_alone(sentence):
    assert misattributions_in(sentence) == []


def test_a_simile_elsewhere_in_the_sentence_does_not_unbind_a_term():
    """Trial 31: the candidate's correction was not heard because of "像操作系统分页一样", and the close
    reminded them of the swap they had just put right."""
    sentence = (
        "PagedAttention 是 vLLM 的，核心是把 KV cache 切成固定大小的 block，像操作系统分页一样用 block table 映射。"
    )
    assert rightly_owned_in(sentence) == {"misattributed-pagedattention"}
    assert misattributions_in("vLLM 和 SGLang 一样用 RadixAttention。") == []


@pytest.mark.parametrize(
    "wrong, later, right",
    [
        ("ProRL, the prolonged-RL paper from Google DeepMind, ran 2,000 steps.", "ProRL 其实是英伟达提出的。", True),
        ("ProRL, the prolonged-RL paper from Google DeepMind, ran 2,000 steps.", "GRPO 是 DeepSeek 提出的。", False),
        (
            "ProRL, the prolonged-RL paper from Google DeepMind, ran 2,000 steps.",
            "ProRL is from Google DeepMind.",
            False,
        ),
        ("vLLM's core is RadixAttention.", "vLLM's core is PagedAttention.", True),
        ("vLLM's core is RadixAttention.", "RadixAttention is SGLang's.", True),
        ("AReaL comes from ByteDance Seed.", "AReaL is Ant Group's.", True),
        ("AReaL comes from ByteDance Seed.", "slime is Zhipu's.", False),
        # a denial before a colon denies the wrong claim, and what follows the colon is asserted
        ("slime comes from ByteDance Seed.", "You're right, that was wrong: slime is from THUDM.", True),
        ("slime comes from ByteDance Seed.", "It's wrong that slime is from THUDM.", False),
        # blind trial 36: decoupled PPO's roles swapped, then given back with "纠正的是" (what the weight corrects for)
        (
            "而 proximal policy pi_prox 只出现在 importance weight pi_prox/pi_behav 里做 off-policy 修正",
            "Importance weight pi_prox/pi_behav 纠正的是 behavior policy，也就是真正生成这些 token 的旧策略",
            True,
        ),
        (
            "而 proximal policy pi_prox 只出现在 importance weight pi_prox/pi_behav 里做 off-policy 修正",
            "Importance weight pi_prox/pi_behav 纠正的是 proximal policy",
            False,
        ),
    ],
)
def test_a_swap_is_put_right_by_the_term_or_the_owner_given_back(wrong, later, right):
    [swap] = misattributions_in(wrong)
    assert puts_right(swap.misconception, wrong, later) is right


def test_a_role_group_needs_two_sides(tmp_path: Path):
    from knowledge.facts import FACTS_FILE

    data = yaml.safe_load(FACTS_FILE.read_text(encoding="utf-8"))
    group = next(g for g in data["groups"] if g["binds_by"] == "role")
    group["owners"].append({**group["owners"][0], "name": "a third"})
    bad = tmp_path / "facts.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(InputError, match=rf"facts\.yaml: .*{group['id']} needs exactly two owners"):
        load_facts.__wrapped__(bad)


def test_a_role_swap_is_corrected_both_ways_round_and_challenged_by_asking_which():
    wrong = misattributions()["misattributed-pp-across-nodes"]
    assert "pipeline parallelism: across nodes" in wrong.correction and "tensor parallelism" in wrong.correction
    assert "流水线并行：跨节点" in wrong.correction_zh
    asked = challenges()["misattributed-pp-across-nodes"].en
    assert "tensor and pipeline parallelism belongs across nodes?" in asked, "it asks which, naming both sides"


def test_a_role_swap_is_not_the_evidence_for_the_point_it_turns_round(scorer):
    """Trial 31's plant, which e5 read as the decoupled-PPO point: challenged, and credited nothing."""
    answer = (
        "AReaL's decoupled PPO keeps the clip trust region centred on the behaviour policy that generated the "
        "tokens, and the proximal policy is the one you importance-weight against to correct for the staleness."
    )
    result = scorer.assess(BANK["algo-14"], answer, None)
    assert "misattributed-prox-is-clip-centre" in {m.misconception for m in result.misconceptions}
    assert "areal-decoupled-ppo" not in {e.key_point for e in result.covered}


def test_a_role_swap_the_bank_also_names_is_one_confusion(scorer):
    """Trial 31's PP/TP plant is the bank's "tp-across-nodes" and our "inside a node" swap at once:
    one confusion, so the right sentence before it still counts."""
    answer = (
        "KV-cache transfer matters because prefill and decode run on different GPUs. The rule of thumb is to put "
        "pipeline parallelism inside the node on NVLink and stretch tensor parallelism across nodes over "
        "InfiniBand, since PP is the chatty one."
    )
    result = scorer.assess(BANK["infra-02"], answer, None)
    assert {m.misconception for m in result.misconceptions} == {"tp-across-nodes", "misattributed-tp-inside-node"}
    assert result.depth == 1 and result.covered


def test_clip_higher_put_on_the_lower_bound_is_found_and_the_right_side_left_alone():
    """Trial 31's plant (algo-13), credited as expert figures; the owners are what "raise" acts on."""
    plant = (
        "DAPO's clip-higher raises the lower clip, epsilon_low goes to 0.28 while epsilon_high stays at 0.2, "
        "so tokens with negative advantage can be pushed down further"
    )
    assert {m.misconception for m in misattributions_in(plant)} == {"misattributed-clip-higher-raises-upper"}
    assert misattributions_in("DAPO 的 clip-higher 是把下界 ε_low 提到 0.28，上界保持 0.2。")
    right = "DAPO's clip-higher only raises ε_high to 0.28, leaving ε_low at 0.2, against entropy collapse."
    assert misattributions_in(right) == []
    assert rightly_owned_in(right) == {
        "misattributed-clip-higher-raises-upper",
        "misattributed-clip-higher-keeps-lower",
        "misattributed-clip-higher-from-dapo",
        "misattributed-clip-higher-in-dapo",
    }
    # the raise to keep entropy up is a purpose, not the lower bound kept; CISPO's bounds are not DAPO's
    assert misattributions_in("DAPO's clip-higher raises the upper clip bound to keep entropy from collapsing.") == []
    assert (
        misattributions_in("In CISPO they tune only the lower bound eps_low and leave the upper bound infinite.") == []
    )


@pytest.mark.parametrize(
    ("sentence", "wrong"),
    [
        # Blind trial 42's plant (algo-13): the technique given to the other paper of the season.
        ("Dr.GRPO 还提出了 clip-higher，把 clip 的上界 ε_high 从 0.2 提到 0.28，防止 entropy collapse。", True),
        ("Dr. GRPO introduced Clip-Higher to fight entropy collapse.", True),
        ("DeepSeek introduced Clip-Higher.", True),
        ("DAPO 提出了 clip-higher。", False),
        ("DAPO introduced clip-higher, and Dr. GRPO removed the length bias.", False),
        # a Chinese comma ends the clause: DAPO is not given to the bias named before it
        ("Dr. GRPO 去掉了长度偏差，DAPO 提出了 clip-higher。", False),
    ],
)
def test_an_origin_named_before_what_it_proposed_is_read_in_the_active_voice(sentence, wrong):
    assert bool(misattributions_in(sentence)) is wrong


def test_our_own_text_gives_no_term_to_the_wrong_owner():
    """Our notes, statements, model answers, hints and corrections are right: no sentence of them, read
    as an answer is, swaps an owner or a role (algo-11's model answer "并在整个训练过程中记录逐 token 的训推
    KL" had been read as routing recorded in the trainer). The bank's wrong claims and cues may."""
    from agent.text import sentences
    from knowledge.bank import NOTES_DIR

    texts = [p.read_text(encoding="utf-8") for p in sorted(NOTES_DIR.glob("*.md"))]
    for question in BANK.values():
        texts += [question.model_answer, question.model_answer_zh or ""]
        for kp in question.key_points:
            texts += [kp.statement, kp.statement_zh or "", *(h.en + "\n" + h.zh for h in kp.hints)]
        texts += [f"{m.correction}\n{m.correction_zh or ''}" for m in question.misconceptions]
    swapped = [(s, misattributions_in(s)) for text in texts for s in sentences(text) if misattributions_in(s)]
    assert swapped == []
