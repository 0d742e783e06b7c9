"""The offline interviewer's voice (agent.brains.wording): what it affirms, what it quotes, how it opens."""

from __future__ import annotations

import itertools
import re

import pytest

from agent.brains.request import WriteRequest
from agent.brains.wording import (
    carries_content,
    claim_quote,
    excerpt,
    opening,
    part_name,
    phrase,
    probe_text,
    shown_words,
)
from agent.prompts import load_yaml
from agent.state import Assessment, Decision, Evidence, Flag, Heard

PHRASES = load_yaml("offline_wording.yaml")
CLIP = "PPO clips the probability ratio between the new and the old policy to one plus or minus epsilon"


def said_as(line: str, lang: str, kind: str) -> bool:
    """The line opens with one of the kind's variants (its text up to the first placeholder)."""
    return any(line.startswith(variant.split("{")[0]) for variant in PHRASES[lang][kind])


def said_in(line: str, lang: str, kind: str) -> bool:
    """One of the kind's variants is in the line (by its longest stretch of words)."""
    return any(max(re.split(r"\{\w+\}", v), key=len) in line for v in PHRASES[lang][kind])


def line_after(question, evidence: list[Evidence], target: str, said: str | None = None, lang: str = "en") -> str:
    """The follow-up on `target` after an answer that showed `evidence` (all of it new)."""
    assessment = Assessment(
        question=question.id,
        depth=1 if evidence else 0,
        answer_depth=1 if evidence else 0,
        covered=evidence,
        new=[e.key_point for e in evidence],
    )
    decision = Decision(action="follow_up", target=target, said=said)
    return phrase(WriteRequest(question, decision, assessment, (), lang, 0))


def clip_credit(strength: float | None) -> Evidence:
    return Evidence(key_point="clip-the-ratio", level=1, quote=CLIP + ".", how="cue", strength=strength)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_two_variants_of_any_kind_open_alike(lang):
    """The variant is chosen by the line count, so this is what keeps two lines in a row apart."""
    # A kind's `_unquoted` or `_unnamed` twin is the same move: its i-th variant stands for the kind's i-th.
    variants = [
        (kind.removesuffix("_unquoted").removesuffix("_unnamed"), i, text)
        for kind, texts in PHRASES[lang].items()
        for i, text in enumerate(texts)
    ]
    clashes = [
        (a, b)
        for (family_a, i, a), (family_b, j, b) in itertools.combinations(variants, 2)
        if opening(a) == opening(b) and (family_a, i) != (family_b, j)
    ]
    assert clashes == []


def test_a_chinese_line_never_sets_a_part_where_a_noun_belongs():
    """A part is a sub-question ("Megatron 和 FSDP 在并行策略上有什么区别"): a blind trial read
    "你在Megatron 和 FSDP 在并行策略上有什么区别这部分已经开了个头". After 在, or run into 这部分
    without quotes, it reads as a broken sentence; set apart by brackets or a colon it reads as a name."""
    spliced = [v for texts in PHRASES["zh"].values() for v in texts if re.search(r"在\{part\}|(?<!“)\{part\}这", v)]
    assert spliced == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_curly_quotes_hold_only_the_candidates_words(lang):
    """“…” is how a line quotes the candidate; a part's name in them ("“slime 是如何与 Megatron 集成的”这部分
    你已经开了个头") read, in self-play, as words the candidate never said."""
    quoted_part = [v for texts in PHRASES[lang].values() for v in texts if "“{part}”" in v]
    assert quoted_part == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_sure_credit_is_affirmed_and_a_weak_one_only_heard(bank, lang):
    """The judge credits the right terms inside some wrong claims, through a cue phrase its reading
    did not confirm: calling those "correct" would teach the candidate an error."""
    question = bank["algo-07"]
    sure = line_after(question, [clip_credit(0.99)], "zero-gradient-cases", lang=lang)
    weak = line_after(question, [clip_credit(0.7)], "zero-gradient-cases", lang=lang)
    unread = line_after(question, [clip_credit(None)], "zero-gradient-cases", lang=lang)
    assert said_as(sure, lang, "acknowledge_quote"), sure
    for line in (weak, unread):
        assert said_as(line, lang, "acknowledge_heard"), line
        assert "probability ratio" in line  # still heard, in the candidate's words


AFFIRMING = {"en": ("Right", "That's right", "Correct", "Yes", "Agreed"), "zh": ("对", "没错", "说得对", "是的")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_affirmation_names_what_it_affirms(bank, lang):
    """A blind trial: "That's right. You touched on this with “the base model already has the
    pieces”; ..." after an answer with a planted error in it; the bare "That's right." read as
    approval of all of it. Beside another quote, or for a list of terms, nothing is called right."""
    question = bank["algo-07"]
    beside = line_after(question, [clip_credit(0.99)], "zero-gradient-cases", said="the gradient is zero", lang=lang)
    listed = phrase(
        WriteRequest(
            question,
            Decision(action="follow_up", target="zero-gradient-cases"),
            Assessment(
                question=question.id,
                depth=1,
                answer_depth=1,
                covered=[clip_credit(0.99)],
                new=["clip-the-ratio"],
                flags=[Flag.keyword_list],
            ),
            (),
            lang,
            0,
        )
    )
    for line in (beside, listed):
        assert not line.startswith(AFFIRMING[lang]), line


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_follow_up_quotes_the_candidate_once(bank, lang):
    """Users saw "你提到“但能大大降低方差”。你前面提到“除以 std 其实不是必须的”，能再说具体一点吗？": two
    quotes, the first left hanging. The line that builds on what was said toward its target quotes
    only that; what was right is acknowledged in a word."""
    question = bank["algo-07"]
    said = "the gradient is zero once the ratio is past the clip"
    for number in range(4):  # every variant of the acknowledgement and of the move
        assessment = Assessment(
            question=question.id, depth=1, answer_depth=1, covered=[clip_credit(0.99)], new=["clip-the-ratio"]
        )
        decision = Decision(action="follow_up", target="zero-gradient-cases", said=said)
        line = phrase(WriteRequest(question, decision, assessment, (), lang, number))
        assert line.count("“") == 1 and said in line, line
        assert "probability ratio" not in line, line


@pytest.mark.parametrize(
    ("sentence", "cue", "quoted"),
    [
        # A user trial quoted "普通 PPO clip 不够是": cut before 因为 in 是因为.
        (
            "普通 PPO clip 不够是因为 staleness 大的时候 ratio 早就超出 1±ε 了，clip 只会把梯度截掉。",
            "clip",
            "不够是因为 staleness",
        ),
        # ... and "因为那部分是常数——这就是 SFT/MLE": a reason without the claim it is the reason for.
        ("CE 和 KL 只差一个 H(p)，因为那部分是常数。", "常数", "CE 和 KL 只差一个 H(p)，因为"),
        (
            "The loss gets scaled because the count was all-reduced twice, so it is N times too big.",
            "all-reduced",
            "The loss gets scaled because",
        ),
        # 之所以 X，是因为 Y: the premise goes with its reason ("所以要减 baseline" was a fragment).
        ("之所以要减 baseline，是因为它能降低方差。", "baseline", "之所以要减 baseline，是因为"),
        # A trial: "同意你说的“只剩几条序列的时候”": a condition, which ends its clause in Chinese.
        (
            "因为 decode 要读完整的权重，只剩几条序列的时候，每条序列都要独占大量带宽，所以吞吐掉得厉害。",
            "只剩几条序列",
            "只剩几条序列的时候，每条序列都要独占",
        ),
        # Blind trial 32: "你说“代入 Bradley-Terry 偏好模型时”，这个对" affirmed a bare 时 clause.
        (
            "代入 Bradley-Terry 偏好模型时，chosen 和 rejected 的奖励相减，Z(x) 就消掉了。",
            "bradley-terry",
            "代入 Bradley-Terry 偏好模型时，chosen 和 rejected 的奖励相减",
        ),
    ],
)
def test_a_quote_keeps_a_reason_with_its_claim_and_never_ends_on_a_copula(sentence, cue, quoted):
    quote = claim_quote(sentence, [cue])
    assert quote and quoted in quote, quote
    assert not quote.endswith("是"), quote


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_after_an_answer_that_showed_nothing_the_follow_up_does_not_go_deeper(bank, lang):
    question = bank["algo-02"]  # one part: a follow-up stays in it
    assert len(question.parts) <= 1
    target = min(question.key_points, key=lambda kp: kp.level).id
    for number in range(4):  # every variant of the line
        assessment = Assessment(question=question.id, depth=0, answer_depth=0)
        line = phrase(WriteRequest(question, Decision(action="follow_up", target=target), assessment, (), lang, number))
        assert said_as(line, lang, "narrower"), line


def test_a_quote_never_ends_inside_an_aside_or_opens_on_a_joining_word():
    aside = (
        "The weights are pushed to the engine after every step over NCCL broadcast from rank zero "
        "(that's the usual way when the trainer and engine are on separate GPUs and nodes)"
    )
    quote = claim_quote(aside)
    assert quote and "(" not in quote and quote.endswith("…"), quote
    quote = claim_quote("Weights go over NCCL between nodes, or via CUDA IPC handles when colocated on one node")
    assert quote and not quote.lower().startswith(("or ", "and ")), quote


def test_a_latin_word_set_into_chinese_gets_a_space_and_a_quote_stays_exact():
    from agent.brains.wording import Voice

    for number in range(4):  # every variant: the part sits after and before Chinese words
        line = Voice("zh", number).say("new_part", part="CISPO 和 PPO", probe="为什么？")
        assert "CISPO 和 PPO" in line
        assert not re.search(r"[\u4e00-\u9fff]CISPO|PPO[\u4e00-\u9fff]", line), line
    quoted = Voice("zh", 0).say("acknowledge_quote", quote="clip住ratio")
    assert "“clip住ratio”" in quoted


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_after_a_protest_not_borne_out_the_follow_up_goes_elsewhere_not_deeper(bank, lang):
    """ "I looked and did not find it; let's go on. One more follow-up on this point:" (a tester)."""
    question = bank["algo-02"]
    target = min(question.key_points, key=lambda kp: kp.level).id
    evidence = [Evidence(key_point=target, level=1, quote="x", how="meaning", strength=0.99)]
    other = next(kp.id for kp in question.key_points if kp.id != target)
    for number in range(4):
        assessment = Assessment(question=question.id, depth=1, answer_depth=0, covered=evidence, new=[])
        decision = Decision(action="follow_up", target=other, heard=Heard.already_said)
        line = phrase(WriteRequest(question, decision, assessment, (), lang, number))
        assert said_as(line, lang, "protest_not_found"), line
        deeper = [v.split("{")[0] for v in PHRASES[lang]["deeper"]]
        assert not any(d in line for d in deeper), line
        assert any(v.split("{")[0] in line for v in PHRASES[lang]["elsewhere"]), line


def test_a_sentence_that_made_two_points_is_quoted_by_the_clause_that_made_each(bank):
    """The review and the report quoted one long sentence whole under every point it showed."""
    question = bank["algo-07"]
    sentence = (
        "PPO clips the probability ratio to the range 1±ε, and taking the min of the clipped and unclipped "
        "terms makes the objective a pessimistic lower bound."
    )
    quotes = {
        kp: shown_words(
            question, Evidence(key_point=kp, level=question.key_point(kp).level, quote=sentence, how="meaning")
        )
        for kp in ("clip-the-ratio", "why-min-pessimistic")
    }
    assert quotes["clip-the-ratio"] != quotes["why-min-pessimistic"]
    assert all(q in sentence for q in quotes.values())
    assert "clips the probability ratio" in quotes["clip-the-ratio"] and "pessimistic" in quotes["why-min-pessimistic"]


def test_a_chinese_sentence_is_quoted_by_the_clause_that_makes_the_point_in_chinese(bank):
    """Blind trial 40's follow-up said "你已经说到“这个要看 all-reduce 用的是 SUM 还是 AVG”了" and asked for
    the other half of that sentence, the half that carries the point on logging against the gradient
    path: the clause was picked by its words shared with the English statement alone."""
    question = bank["algo-09"]
    sentence = (
        "这个要看 all-reduce 用的是 SUM 还是 AVG，以及被多 reduce 的是用来 backward 的 loss 还是只是拿来 log 的数值。"
    )
    evidence = Evidence(key_point="logging-vs-gradient-path", level=1, quote=sentence, how="meaning")
    quote = shown_words(question, evidence)
    assert "backward" in quote and "SUM" not in quote and quote in sentence


def test_a_wrong_claim_is_quoted_by_its_wrong_clause_not_the_right_one_beside_it(bank):
    """A user trial: "Careful: “We subtract a baseline to reduce variance” is not how it works"
    pointed at the right half of the sentence; the wrong half is the one its correction denies."""
    wrong = bank["algo-05"].misconception("baseline-adds-bias")
    sentence = (
        "We subtract a baseline to reduce variance, although it does introduce a small bias into the gradient, "
        "which is the price you pay."
    )
    quote = claim_quote(sentence, wrong.cues.all(), wrong.statement, not_claim=wrong.correction)
    assert quote == "it does introduce a small bias into the gradient"
    assert quote in sentence


@pytest.mark.parametrize(
    "sentence, quoted",
    [
        (
            "atomic add 会带来 run-to-run 的不确定性，但解决办法其实就是用 atomic add，因为原子操作保证了每次加法都是完整执行的，所以结果是确定的。",
            "解决办法其实就是用 atomic add",
        ),
        (
            "Atomic adds make runs differ from each other, but the fix is just to use atomic add for the reduction.",
            "the fix is just to use atomic add for the reduction",
        ),
    ],
)
def test_a_wrong_claim_after_but_is_quoted_not_the_right_one_before_it(bank, sentence, quoted):
    """A trial: "等一下，你说“atomic add 会带来 run-to-run 的不确定性”，我觉得这不太对" challenged the
    right half of the sentence; what comes after "but" is what the speaker holds."""
    wrong = bank["infra-12"].misconception("atomics-fix-it")
    assert claim_quote(sentence, wrong.cues.all(), wrong.statement, not_claim=wrong.correction) == quoted


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_part_the_candidate_began_on_is_not_called_unanswered(bank, lang):
    """A trial's "PPO epoch 一般就 1 到 2，多了数据就越来越 off-policy" (read short of its point) was met
    with "我们来看另一部分：PPO epoch 数怎么选"; a part with only a near miss is one begun on."""
    question = bank["algo-12"]
    target = next(kp for kp in question.points_of("ppo-epochs") if kp.id != "epochs-off-policy")
    began = Evidence(
        key_point="epochs-off-policy", level=3, quote="PPO epoch 一般就 1 到 2。", how="meaning", strength=0.53
    )
    shown = Evidence(
        key_point="typical-ranges", level=1, quote="group size 一般 8 到 16。", how="meaning", strength=0.96
    )

    def follow_up(near: list[Evidence]) -> str:
        assessment = Assessment(
            question=question.id, depth=1, answer_depth=1, covered=[shown], new=[shown.key_point], near_misses=near
        )
        decision = Decision(action="follow_up", target=target.id)
        return phrase(WriteRequest(question, decision, assessment, (), lang, 0))

    assert said_in(follow_up([]), lang, "new_part")
    line = follow_up([began])
    assert said_in(line, lang, "part_touched") and not said_in(line, lang, "new_part"), line


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_part_begun_on_in_an_earlier_answer_is_not_called_unanswered(bank, lang):
    """A blind trial (algo-08): the first answer said why DAPO drops the KL (uncredited: a wrong claim
    beside it capped the answer), and after the correction the follow-up opened "You haven't got to
    why methods such as DAPO and GSPO drop it yet". The last answer's near misses are not all that
    was said: what earlier answers said toward the part counts too."""
    question = bank["algo-08"]
    fixed = Evidence(
        key_point="kl-in-loss", level=2, quote="The KL is a separate term in the loss.", how="meaning", strength=0.97
    )
    assessment = Assessment(
        question=question.id, depth=2, answer_depth=2, covered=[fixed], new=[fixed.key_point], near_misses=[]
    )
    decision = Decision(action="follow_up", target="kl-ref-vs-trust-region")
    earlier = {"why-drop-in-rlvr": "DAPO and GSPO drop it because long reasoning must move far from the start."}
    assert said_in(phrase(WriteRequest(question, decision, assessment, (), lang, 0)), lang, "new_part")
    line = phrase(WriteRequest(question, decision, assessment, (), lang, 0, partly=earlier))
    assert said_in(line, lang, "part_touched") and not said_in(line, lang, "new_part"), line


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_part_named_in_a_sentence_credited_elsewhere_is_not_called_unanswered(bank, lang):
    """Blind trial 38 (algo-13): the first answer gave "局限是 ..." after each of eight methods, each
    sentence credited for its method's point, and the follow-up opened "题目里还有一部分你还没回答：
    它们各自的局限"."""
    question = bank["algo-13"]

    def follow_up(quote: str) -> str:
        shown = Evidence(key_point="dr-grpo", level=2, quote=quote, how="meaning", strength=0.97)
        assessment = Assessment(question=question.id, depth=2, answer_depth=2, covered=[shown], new=["dr-grpo"])
        decision = Decision(action="follow_up", target="shared-limitations")
        return phrase(WriteRequest(question, decision, assessment, (), lang, 0))

    silent = "Dr. GRPO drops the 1/|o_i| factor and the std division and uses a constant instead."
    assert said_in(follow_up(silent), lang, "new_part")
    for quote in (
        "Dr. GRPO drops both normalisations; its limitation is that gradient scales now differ across prompts.",
        "Dr.GRPO 把两个归一化都去掉，改用常数；局限是不同难度题目的梯度尺度不再被拉平。",
    ):
        line = follow_up(quote)
        assert said_in(line, lang, "part_touched") and not said_in(line, lang, "new_part"), line


def cispo_near_miss(quote: str) -> Evidence:
    """A sentence the judge read as near algo-07's point on what CISPO clips."""
    return Evidence(key_point="cispo-clips-weight", level=2, quote=quote, how="meaning", strength=0.6)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_near_miss_that_never_names_the_part_is_no_start_on_it(bank, lang):
    """A trial: "The min makes it a pessimistic lower bound ... the gradient still flows so the policy
    can be corrected" came near a CISPO point, and the candidate, who had said nothing of CISPO, was
    told "You made a start on how CISPO differs"."""
    question = bank["algo-07"]
    shown = Evidence(
        key_point="why-min-pessimistic", level=3, quote="The min makes it a pessimistic lower bound.", how="meaning"
    )
    near = cispo_near_miss(
        "The min picks the unclipped term, and the gradient still flows so the policy can be corrected."
    )
    named = cispo_near_miss("CISPO keeps the gradient flowing for every token.")

    def follow_up(near_miss: Evidence) -> str:
        assessment = Assessment(
            question=question.id,
            depth=1,
            answer_depth=1,
            covered=[shown],
            new=[shown.key_point],
            near_misses=[near_miss],
        )
        decision = Decision(action="follow_up", target="cispo-motivation-tradeoff")
        return phrase(WriteRequest(question, decision, assessment, (), lang, 1))

    assert said_in(follow_up(named), lang, "part_touched"), "naming CISPO is a start on it"
    line = follow_up(near)
    assert not said_in(line, lang, "part_touched") and said_in(line, lang, "new_part"), line


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_part_whose_probe_names_it_is_not_named_twice(bank, lang):
    """Blind trial 32: "Now a part you haven't answered yet: how CISPO differs. How does CISPO differ
    from PPO's clipping?" A probe that asks the part's own question stands for it; one that asks
    something narrower still has the part named before it."""
    question = bank["algo-07"]
    shown = Evidence(key_point="clip-the-ratio", level=1, quote=CLIP + ".", how="cue", strength=0.99)
    part = part_name(question.part("cispo-difference"), lang)

    def follow_up(target: str) -> str:
        assessment = Assessment(question=question.id, depth=1, answer_depth=1, covered=[shown], new=[shown.key_point])
        return phrase(WriteRequest(question, Decision(action="follow_up", target=target), assessment, (), lang, 0))

    restating = follow_up("cispo-clips-weight")
    assert probe_text(question, "cispo-clips-weight", lang) in restating
    assert part not in restating and said_in(restating, lang, "new_part_unnamed"), restating
    narrower = follow_up("cispo-motivation-tradeoff")
    assert part in narrower and said_in(narrower, lang, "new_part"), narrower


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_after_a_protest_not_borne_out_a_part_is_not_called_begun(bank, lang):
    """A trial: "I re-read what you said and couldn't pin that down ...; let's keep going. You made a
    start on how to assess KV-cache utilization" contradicted itself in one line."""
    question = bank["algo-07"]
    assessment = Assessment(
        question=question.id,
        depth=1,
        answer_depth=1,
        near_misses=[cispo_near_miss("CISPO keeps a gradient for every token.")],
    )
    decision = Decision(action="follow_up", target="cispo-motivation-tradeoff", heard=Heard.already_said)
    line = phrase(WriteRequest(question, decision, assessment, (), lang, 0))
    assert said_in(line, lang, "protest_not_found") and said_in(line, lang, "part_after_protest"), line
    assert not said_in(line, lang, "part_touched"), line


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "70B-plus MoE is not realistic on TRL"), ("zh", "70B 以上的 MoE 基本不现实")]
)
def test_a_line_that_asks_to_go_further_does_not_ask_for_precision_twice(bank, lang, said):
    """Blind trial 41: "能再说具体一点吗？具体一点：挑三个场景…": the probe's own call for precision is
    dropped after a line that already makes it, and what the probe asks stays."""
    question = bank["infra-16"]
    probe = probe_text(question, "concrete-recommendation", lang)
    line = line_after(question, [], "concrete-recommendation", said=said, lang=lang)
    assert said in line and said_in(line, lang, "partly"), line
    opener = re.split(r"[:：]", probe, maxsplit=1)[0]
    assert probe[: len(opener) + 1] not in line, line
    assert probe[len(opener) + 1 :].strip()[1:] in line, line


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "ProRL trained a 70B model for more than 20,000 steps"),
        ("zh", "ProRL 在 70B 模型上训练了两万多步"),
    ],
)
def test_figures_that_are_not_the_points_are_asked_to_be_checked(bank, lang, said):
    """A user trial: "ProRL 在 70B 模型上，两万多步" went unchallenged. The follow-up on the figures
    point names the candidate's figures and asks to check them, rather than to go further."""
    question = bank["algo-16"]
    line = line_after(question, [], "prorl-figures", said=said, lang=lang)
    assert any(variant.split("{")[0] in line for variant in PHRASES[lang]["figures_check"]), line
    assert said in line
    right = line_after(question, [], "prorl-figures", said="ProRL trained a 1.5B model for 2,000 steps", lang=lang)
    assert not any(variant.split("{")[0] in right for variant in PHRASES[lang]["figures_check"]), right


def test_an_excerpt_ends_at_a_word_not_inside_one():
    """A trial's report listed a wrong claim as "... which is low variance but biased by the critic, whic…"."""
    claim = (
        "Lambda trades bias against variance: lambda = 0 gives you the plain Monte Carlo return minus the "
        "value, and lambda = 1 collapses to the one-step TD error, which is low variance but biased by the critic."
    )
    cut = excerpt(claim, 160)
    assert len(cut) <= 160 and cut.endswith("…")
    assert claim.startswith(cut[:-1]) and claim[len(cut) - 1] in " ,"  # the next character ends a word
    assert excerpt("short and whole", 160) == "short and whole"


def test_a_quote_cut_to_length_still_carries_content_or_is_not_made(bank):
    """Self-play quoted "On min(: L = E[min(r*A, clip(r, 1-eps, 1+eps)*A)]: when A > …": the clause
    chosen carried content, the words left after the cut did not."""
    point = bank["algo-07"].key_point("zero-gradient-cases")
    sentence = f"On min(: {point.statement.rstrip('.')}, because that is what keeps the update well behaved."
    quote = claim_quote(sentence, point.cues.all(), point.statement)
    assert quote is None or carries_content(quote.rstrip("…"))
    assert claim_quote("PPO clips the ratio so the step stays small.") == "PPO clips the ratio"


@pytest.mark.parametrize(
    ("sentence", "cues", "claim", "not_quoted"),
    [
        (
            "For best-of-N, the KL from the base policy is log N - (N-1)/N, so N=16 costs about 1.8 nats.",
            ["best-of-n", "log n"],
            "best-of-N's KL from the base policy is log N minus (N-1)/N",
            "For best-of-N",
        ),
        (
            "对于 best-of-N，和基座的 KL 是 log N 减 (N-1)/N。",
            ["best-of-n"],
            "best-of-N 的 KL 是 log N 减 (N-1)/N",
            "对于 best-of-N",
        ),
    ],
)
def test_a_clause_that_only_sets_the_scene_is_not_the_quote(sentence, cues, claim, not_quoted):
    """Blind trial 42: an expert point's evidence was quoted as “For best-of-N”."""
    quote = claim_quote(sentence, cues, claim)
    assert quote and quote != not_quoted and "log N" in quote, quote
