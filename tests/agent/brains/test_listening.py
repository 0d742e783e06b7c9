"""Hearing the candidate (agent.brains.listening) and quoting them (agent.brains.wording.claim_quote): requests in
words in English and Chinese, the content left without the talk about the conversation, what was
already said toward a target, and the clause a follow-up quotes."""

from __future__ import annotations

import re

import pytest

from agent.brains.listening import Reply, clarification_for, hear, recall, said_toward, strip_meta
from agent.brains.request import WriteRequest
from agent.brains.wording import claim_quote, opening, phrase
from agent.interview.policy import Limits, decide
from agent.judge.scoring import RubricScorer
from agent.state import Assessment, CandidateAction, Evidence, Heard, QuestionProgress, Turn

PROTEST = "I just said it: H(p) of the data does not depend on the model parameters, so it drops out of the gradient."


@pytest.mark.parametrize(
    ("text", "heard"),
    [
        ("I already said that.", Heard.already_said),
        (PROTEST, Heard.already_said),
        ("I've already explained this.", Heard.already_said),
        ("我刚才已经说过了。", Heard.already_said),
        ("我不是说了吗？H(p) 和参数无关。", Heard.already_said),
        ("前面讲过了", Heard.already_said),
        ("Can you repeat the question?", Heard.repeat),
        ("Sorry?", Heard.repeat),
        ("能再说一遍吗？", Heard.repeat),
        ("Let me think.", Heard.wait),
        ("Hmm, one moment.", Heard.wait),
        ("让我想想。", Heard.wait),
        ("Can we move on?", Heard.move_on),
        ("Next question, please.", Heard.move_on),
        ("下一题吧。", Heard.move_on),
        ("还是不知道，这题跳过吧。", Heard.move_on),
        ("Token-level or sequence-level?", Heard.clarify),
        ("Do you mean with or without the KL term?", Heard.clarify),
        ("Which direction of KL do you mean?", Heard.clarify),
        ("No.", Heard.terse),
        ("Yes, it does.", Heard.terse),
        ("Nope!", Heard.terse),
        ("对。", Heard.terse),
        ("不会", Heard.terse),
        ("当然不是。", Heard.terse),
        ("你是说离散分布还是连续分布？", Heard.clarify),
        ("你是说 token 级别还是 sequence 级别？……", Heard.clarify),
        (
            "Before I answer: do you mean the KL to the frozen reference model, or the KL between the old and "
            "the new policy? And should I talk about it token-level or sequence-level?",
            Heard.clarify,
        ),
        # A trial: two questions back that name examples on the way were judged as an answer, and praised.
        (
            "你是说开源的训练框架，比如 verl、OpenRLHF 这种，还是各家实验室内部的系统？"
            "另外同步瓶颈是指 rollout 和训练之间的等待，还是权重同步的等待？",
            Heard.clarify,
        ),
        # A trial: "I did give ..." went unheard.
        ("I did give a limitation for each of the five I covered.", Heard.already_said),
        # A trial: a protest after a complaint about the hint went unanswered, and the question closed.
        (
            "这个提示就是把问题又说了一遍啊。而且数字我刚才已经说过了：R1 拒绝采样造了约 80 万条 SFT 数据。",
            Heard.already_said,
        ),
        # Trials: questions back with a remark that the answer depends on them were judged and credited.
        (
            "It depends on the setting. Before I answer: do you mean rewards for RL post-training of an LLM "
            "specifically, and should I assume we have a ground-truth checker, or only noisy unit tests?",
            Heard.clarify,
        ),
        (
            "这个问题范围挺大的。你是想问 trainer 这边的并行策略，比如 FSDP 和 Megatron 的 TP/PP 下梯度怎么算和同步，"
            "还是 RL 特有的部分，比如 rollout 和训练之间怎么衔接？",
            Heard.clarify,
        ),
        (
            "What's the setting? Are we talking about a single-GPU LoRA experiment, or a multi-node run on a "
            "large MoE model? The answer is completely different.",
            Heard.clarify,
        ),
        (
            "这个要看场景吧：你说的是什么规模？比如是单卡做 LoRA 实验，还是几百张 H100 训 MoE 的 agentic RL？"
            "有没有这个前提我选的会完全不一样。",
            Heard.clarify,
        ),
        (
            "先确认一下：你说的 V4 是指已经公开的哪个版本？据我所知 V4 的技术报告还没完全公开，你是想让我推测方向，"
            "还是只讲 R1 到 V3.2 有公开资料的部分？",
            Heard.clarify,
        ),
    ],
)
def test_requests_in_words_are_heard_in_both_languages(text, heard):
    assert hear(text).heard is heard


@pytest.mark.parametrize(
    "text",
    [
        "As I said, the ratio is clipped to [1-eps, 1+eps] because that keeps the update small.",
        "Let me think... OK so the ratio is clipped because a large step would break the surrogate.",
        "The min gives a lower bound, so is it pessimistic? Yes: it never rewards leaving the trust region, "
        "because the clipped term only removes incentive.",
        "Cross-entropy equals the entropy plus the KL, so minimising either gives the same model.",
        "PPO 把 ratio 限制在 [1-ε, 1+ε] 里面，这样每次更新不会太大。",
        "No, because only the logged copy is reduced again.",
        "Yes, the gradient doubles.",
        "不会，因为 detach 之后的副本不在计算图里。",
        "不保留。",
        "verl.",
        "Prefill is compute-bound. The answer is completely different for decode.",
        "It depends on the scale: for one GPU I'd pick Unsloth because it saves memory.",
        "We did give the reward model a length penalty, and it still drifted longer.",
    ],
)
def test_answers_are_not_mistaken_for_requests(text):
    reply = hear(text)
    assert reply.heard is None
    assert reply.content.strip()


def test_a_protest_keeps_its_content_without_the_protest():
    reply = hear(PROTEST)
    assert reply == Reply(Heard.already_said, reply.content)
    assert reply.content.startswith("H(p) of the data does not depend")
    assert "said" not in reply.content
    assert (
        hear("我刚才已经说过了：H(p) 和模型参数无关，所以梯度里没有它。").content
        == "H(p) 和模型参数无关，所以梯度里没有它。"
    )


def test_the_content_is_made_of_the_reply_s_own_words():
    text = "Hmm. Let me think... OK so the ratio is clipped. 嗯……比率被裁剪了，所以更新很小。"
    lines = [line for line in strip_meta(text).splitlines() if line]
    assert lines == ["the ratio is clipped.", "比率被裁剪了，所以更新很小。"]
    assert all(line in text for line in lines)
    assert strip_meta("I already told you that. Let me think.") == ""


def test_talk_about_the_interviewers_quote_is_not_content():
    """Blind trial 40: "Also, the sentence you quoted was about the rollout engine, not about pi_old."
    was charged with a misconception, then credited as a key point."""
    reply = (
        "No, it does not require another model. Also, the sentence you quoted was about the rollout engine, "
        "not about pi_old. The ratio needs only pi_old's log-probs."
    )
    assert "quoted" not in strip_meta(reply) and "log-probs" in strip_meta(reply)
    assert strip_meta("你引用的那句说的是 rollout 引擎。旧策略只存 log-prob。") == "旧策略只存 log-prob。"


@pytest.mark.parametrize("answer", ["verl.", "不保留。", "slime"])
def test_a_one_word_answer_is_an_answer(answer):
    """ "verl." to "which would you pick?" was taken for talk about the conversation and shown as
    "(no answer)"; one word of talk alone still is talk."""
    assert strip_meta(answer) == answer
    for talk in ("OK.", "please.", "again?"):
        assert strip_meta(talk) == ""


@pytest.mark.parametrize(
    ("answer", "lang", "asks_the_pick_again"), [("verl.", "en", r"\bwhich (?:one|would)\b"), ("verl。", "zh", "选哪个")]
)
def test_a_bare_pick_is_not_asked_for_again(bank, answer, lang, asks_the_pick_again):
    """A user trial (infra-16): to "verl." the follow-up asked "which would it be, and what would make
    you switch?", the pick just given."""
    question = bank["infra-16"]
    assessment = RubricScorer().assess(question, answer, None)
    decision = decide(question, QuestionProgress(assessment=assessment), CandidateAction.answer, Limits(follow_ups=3))
    assert decision.action == "follow_up"
    line = phrase(WriteRequest(question, decision, assessment, (), lang, 1))
    assert line.strip() and not re.search(asks_the_pick_again, line, re.I), line


def test_a_clarifying_question_finds_the_bank_s_answer(bank):
    question = bank["algo-02"]
    direction = next(c for c in question.clarifications if "direction" in c.asks.en)
    assert clarification_for(question, "Which direction of KL do you mean?") == direction
    assert clarification_for(question, "KL 指的是哪个方向？") == direction
    assert clarification_for(question, "Is the weather nice today?") is None


def test_a_question_back_is_not_matched_by_how_it_is_asked(bank):
    """ "你是说 A 还是 B？" shares 是说 and 还是 with every entry asked that way; that is no answer to it."""
    asked = "你是说数学那种 verifier 被钻空子，还是代码的 unit test 被钻空子？"
    assert any("是说" in c.asks.zh and "还是" in c.asks.zh for c in bank["algo-03"].clarifications)
    assert clarification_for(bank["algo-03"], asked) is None


def test_what_was_already_said_toward_a_probe_is_found_by_its_words(bank):
    question = bank["algo-02"]
    point = question.key_point("entropy-constant-same-gradient")
    said = "The data entropy is constant, so minimising cross-entropy and minimising KL give the same model."
    assert said_toward(question, point, ["MLE maximises the log-likelihood.", said]) == said
    assert said_toward(question, point, ["MLE maximises the log-likelihood of the data."]) is None
    assert said_toward(question, question.key_point("token-level-one-hot"), [said]) is None


def test_a_quote_is_the_clause_that_carries_the_claim():
    assert claim_quote(PROTEST) == "H(p) of the data does not depend on the model parameters"
    assert (
        claim_quote(
            "Yeah so, the min gives you a lower bound on the unclipped objective, it's pessimistic.", ["lower bound"]
        )
        == "the min gives you a lower bound on the unclipped objective"
    )
    # Brackets are never cut: the comma inside H(p,q) is not a clause break.
    assert (
        claim_quote("Cross-entropy H(p,q) equals H(p) plus KL(p||q).")
        == "Cross-entropy H(p,q) equals H(p) plus KL(p||q)"
    )
    # A formula fragment carries no claim; the clause that does is quoted.
    assert (
        claim_quote(
            "E[ min( r_t * A_t , clip(r_t, 1-eps, 1+eps) * A_t ) ]. So if the advantage is positive, "
            "once r goes above 1+eps there is no gradient"
        )
        == "if the advantage is positive, once r goes above 1+eps there is no gradient"
    )
    # A condition is not the claim: it is quoted with what the candidate says follows from it.
    assert (
        claim_quote(
            "If the loss is all-reduced twice, nothing really happens, because all-reduce is idempotent.",
            claim="All-reducing the loss twice is harmless",
        )
        == "If the loss is all-reduced twice, nothing really happens"
    )
    assert claim_quote("如果只做一步完全 on-policy 的更新，clip 不起任何作用。") == (
        "如果只做一步完全 on-policy 的更新，clip 不起任何作用"
    )
    # A clause that introduces what follows names the subject, not the claim (a blind bluff's quote).
    swapped = "vLLM 和 SGLang 的区别：vLLM 的核心是 RadixAttention，用基数树做前缀共享。"
    assert claim_quote(swapped, ["radixattention", "vllm"]) == "vLLM 的核心是 RadixAttention"
    assert claim_quote("Hi! Thanks, good question.") is None
    # 、 lists items inside a clause: "ZeRO-3 或者 FSDP 把参数" was quoted (a user trial)
    listed = "ZeRO-3 或者 FSDP 把参数、梯度和优化器状态都切分到各个卡上，所以每张卡只存 1/N。"
    assert claim_quote(listed, ["zero-3"]) == "ZeRO-3 或者 FSDP 把参数、梯度和优化器状态都切分到各个卡上"


def test_a_long_quote_is_cut_at_a_word_boundary():
    sentence = (
        "The clipped surrogate objective removes the incentive to move the probability ratio outside "
        "the trust region around one, which keeps each policy update conservative"
    )
    quote = claim_quote(sentence, limit=60)
    assert quote.endswith("…") and len(quote) <= 60
    assert sentence.startswith(quote[:-1])
    assert sentence[len(quote) - 1] == " ", "never inside a word"


def test_the_opening_of_a_line_is_its_first_two_words_or_three_characters():
    assert opening("Hold on: you said “x”.") == "hold on"
    assert opening("等一下，你说“x”") == "等一下"


def test_every_clarifying_question_of_the_bank_is_heard_as_one_and_finds_its_answer(bank):
    for question in bank.questions():
        for entry in question.clarifications:
            for asks in (entry.asks.en, entry.asks.zh):
                assert hear(asks, question).heard is Heard.clarify, (question.id, asks)
                assert clarification_for(question, asks) == entry, (question.id, asks)


@pytest.mark.parametrize(
    "text",
    [
        "Is it because the ratio is clipped?",
        "So the min is a lower bound?",
        "所以是因为 ratio 被裁剪了吗？",
        "Can I get a hint?",
        "On-policy distillation... I guess the student learns from the teacher, but on its own samples?",
        "我猜是学生自己采样，老师给每个 token 打分？",
        "FSDP 我用过，但是 overlap 这块不太懂……能给点提示吗？",
    ],
)
def test_a_tentative_answer_or_a_hint_request_is_not_a_clarifying_question(text):
    assert hear(text).heard is None


def test_a_hedged_answer_phrased_as_a_question_is_judged(bank):
    """A candidate unsure of a right answer ends it with a question mark; it is still the answer."""
    text = "I guess the student learns from the teacher, but on its own samples instead of the teacher's outputs?"
    reply = hear(text, bank["algo-17"])
    assert reply.heard is None
    assert "own samples" in reply.content


@pytest.mark.parametrize(
    "sentence",
    [
        "Thinking Machines showed that at temperature 0 a thousand identical prompts gave 80 different completions.",
        "Right-hand side is the KL to the reference.",
        "对于每个 token，ratio 都会被 clip。",
        "好处是方差小，代价是有偏。",
        "这个系数偶尔会特别大，所以要截断。",
    ],
)
def test_words_that_only_look_like_talk_are_kept_whole(sentence):
    """Hearing takes out openings like "thinking...", "好，" or "对，"; content that starts with the
    same letters (a lab's name, 对于, 好处, 这个系数) is judged as written."""
    assert strip_meta(sentence) == sentence


def test_openings_followed_by_a_pause_are_talk():
    assert strip_meta("嗯，这个，PPO 的 clip 是把比率限制在 1±ε。") == "PPO 的 clip 是把比率限制在 1±ε。"
    assert strip_meta("Thinking... Okay, so the ratio is clipped.") == "the ratio is clipped."


def test_a_protest_does_not_recall_a_figures_point_from_words_without_its_figures(bank):
    """A trial's protest was credited a point it had not given: what is recalled must be able to show
    the point, and a point that is its figures needs one of them."""
    question = bank["algo-16"]
    point = question.key_point("prorl-figures")
    assert point.figures, "the test's premise"

    def earlier(quote: str) -> list[Turn]:
        near = Evidence(key_point=point.id, level=point.level, quote=quote, how="meaning", strength=0.8)
        assessment = Assessment(question=question.id, depth=2, answer_depth=2, near_misses=[near])
        return [Turn(question=question.id, kind="ask", asked="...", answer=quote, assessment=assessment)]

    assert (
        recall(question, point.id, earlier("ProRL trained a small model for a very long time and gained a lot."))
        is None
    )
    found = recall(question, point.id, earlier("ProRL trained a 1.5B model for over 2,000 steps on 136K problems."))
    assert found is not None and found.how == "recalled"


def test_a_protest_does_not_recall_an_expert_point_from_words_that_are_not_its_own(bank):
    """A TUI trial's protest ("我刚才已经说过了") was told "是我漏了：“它只在离线的偏好数据上优化”。算数。", and
    DPO's practice figures (β, learning rates, what Llama 3 added) were counted from that sentence."""
    question = bank["algo-10"]
    point = question.key_point("practice-token-view")
    assert point.level == 4 and not point.figures, "the test's premise: not caught as a figures point"
    quote = "它只在离线的偏好数据上优化"
    near = Evidence(key_point=point.id, level=point.level, quote=quote, how="meaning", strength=0.8)
    assessment = Assessment(question=question.id, depth=2, answer_depth=2, near_misses=[near])
    turns = [Turn(question=question.id, kind="ask", asked="...", answer=quote, assessment=assessment)]
    assert recall(question, point.id, turns) is None
