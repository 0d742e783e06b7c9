"""An interviewer that listens (issue 13), driven through the graph: it never asks for what was just
said, hears "I already said that", answers clarifying questions, repeats, waits and moves on when
asked, goes to the untouched parts of a question first, and never opens two lines alike."""

from __future__ import annotations

import io
import itertools
from datetime import UTC, datetime

import pytest
from agent_helpers import GraphDriver, explain

from agent.brains.wording import opening, part_name, restates_its_probe
from agent.interview.events import QuestionDone
from agent.interview.graph import next_decision
from agent.interview.policy import Limits
from agent.learner.recording import attempts_in
from agent.prompts import load_yaml
from agent.state import Assessment, CandidateAction, Evidence, Flag, Heard, QuestionProgress, Turn
from tui.plain import Renderer

KL = ["algo-02", "infra-10"]
KL_LEVEL_1 = (
    "Cross-entropy H(p,q) equals H(p) plus KL(p||q). MLE maximises the log-likelihood of the data, "
    "which is the forward KL from the data to the model."
)
ENTROPY_SAID = "The data entropy is constant, so minimising cross-entropy and minimising KL give the same model."
PROTEST = "I just said it: H(p) of the data does not depend on the model parameters, so it drops out of the gradient."


async def test_a_follow_up_never_asks_for_what_the_answer_just_explained(graph_driver, bank):
    """Issue 13, first case: the answer explained that the data entropy is constant, so minimising
    cross-entropy and KL give the same model; the follow-up must not ask exactly that."""
    question = bank["algo-02"]
    said = question.key_point("entropy-constant-same-gradient")
    driver = graph_driver(plan=KL)
    await driver.start()
    await driver.reply("answer", f"{KL_LEVEL_1} {ENTROPY_SAID}")
    waiting = driver.waiting
    assert waiting["kind"] == "follow_up"
    assert said.id in driver.progress.assessment.missed, "the cue-only judge does not credit it (the test's point)"
    assert waiting["target"] != said.id
    assert said.probe.en not in waiting["text"] and "drops out" not in waiting["text"]
    target = question.key_point(waiting["target"])
    assert target.id in driver.progress.assessment.missed, "it asks about something not yet said"


async def asked_what_drops_out(graph_driver, bank):
    """A session on algo-02 after a first answer that showed the recall points: the follow-up asks for
    the entropy point (why the data entropy drops out), which a protest then answers."""
    entropy = bank["algo-02"].key_point("entropy-constant-same-gradient")
    driver = graph_driver(plan=KL)
    await driver.start()
    await driver.reply("answer", KL_LEVEL_1)
    assert driver.waiting["target"] == entropy.id
    return driver, entropy


async def test_i_already_said_that_is_heard_credited_and_answered(graph_driver, bank):
    """Issue 13, second case: the protest is recognised, what it says is credited, the reply says so
    in the candidate's claim (never the protest), and the interview moves to the next target."""
    driver, entropy = await asked_what_drops_out(graph_driver, bank)
    assert "Which term drops out?" in driver.waiting["text"]
    await driver.reply("answer", PROTEST)
    turn = driver.values["turns"][-1]
    assert turn.heard is Heard.already_said
    evidence = next(e for e in driver.progress.assessment.covered if e.key_point == entropy.id)
    assert "said it" not in evidence.quote
    waiting = driver.waiting
    assert waiting["kind"] == "follow_up"
    assert waiting["target"] != entropy.id and waiting["target"] in driver.progress.assessment.missed
    assert "“H(p) of the data does not depend on the model parameters”" in waiting["text"]
    assert "I just said" not in waiting["text"] and "Picking up on" not in waiting["text"]
    # The first answer did not say it: the protest itself did, and it counts now (a trial was told
    # "你确实讲过：…" over a sentence it had just written).
    assert opening(waiting["text"]) in {"got that", "that one"}, waiting["text"]


async def test_a_protest_re_reads_the_earlier_answers(graph_driver, bank):
    """A bare "I already said that" credits the target from the earlier answer that answers its probe."""
    question = bank["algo-02"]
    driver = graph_driver(plan=KL)
    await driver.start()
    await driver.reply("answer", f"{KL_LEVEL_1} {ENTROPY_SAID}")
    asked = driver.waiting["target"]
    await driver.reply("answer", "I already said that.")
    assert driver.values["turns"][-1].heard is Heard.already_said
    # The target just asked was not in the first answer: nothing is credited for it, and the reply says so.
    assert asked in driver.progress.assessment.missed
    assert driver.waiting["target"] != asked
    assert opening(driver.waiting["text"]) in {"i went", "i re"}

    entropy = question.key_point("entropy-constant-same-gradient")
    again = graph_driver(plan=KL, thread="again")
    await again.start()
    await again.reply("answer", KL_LEVEL_1)
    await again.reply("answer", f"I mean, {ENTROPY_SAID}")  # said in words that the cues miss
    assert again.waiting["target"] != entropy.id
    await again.reply("answer", "我刚才已经说过了。")
    assert again.values["turns"][-1].heard is Heard.already_said


async def test_a_protest_is_answered_on_what_it_was_about_not_on_another_point(graph_driver, bank):
    """A trial: "I already said that in my first answer..." with a new claim on another point was met
    with "You're right, you did: <that claim>. I'll count that", and the protested point stayed
    missed. The new claim counts; the protest is answered as not found."""
    driver, entropy = await asked_what_drops_out(graph_driver, bank)
    directions = "forward-vs-reverse-kl"
    assert directions in driver.progress.assessment.missed
    await driver.reply(
        "answer",
        "I already said that. Forward KL is mass-covering because it punishes the model wherever the "
        "data has mass, while reverse KL is mode-seeking.",
    )
    assert driver.values["turns"][-1].heard is Heard.already_said
    assessment = driver.progress.assessment
    assert directions not in assessment.missed and entropy.id in assessment.missed
    assert opening(driver.waiting["text"]) in {"i went", "i re"}, driver.waiting["text"]


@pytest.mark.parametrize(
    ("protest", "openings"),
    [
        # Nothing earlier answers the last follow-up: the reply says it could not find it.
        ("I already said that.", {"i went", "i re"}),
        # The protest carries the claim the first answer did not: the reply quotes it, counted now.
        (PROTEST, {"got that", "that one"}),
    ],
)
async def test_a_protest_on_the_last_follow_up_is_answered_as_the_question_closes(
    graph_driver, bank, protest, openings
):
    """A trial's "I already said that" after the last follow-up closed the question in silence: the
    candidate never learnt whether it was found."""
    driver = graph_driver(plan=["algo-02"], max_follow_ups=1)
    await driver.start()
    await driver.reply("answer", KL_LEVEL_1)
    assert driver.waiting["kind"] == "follow_up"
    await driver.reply("answer", protest)
    assert driver.values["turns"][-1].heard is Heard.already_said
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    assert done["said"] is not None and opening(done["said"]) in openings, done["said"]
    # The plain terminal says it as the interviewer, before the question's close.
    out = io.StringIO()
    Renderer(out, jsonl=False, bank=bank).show(next(e for e in driver.streamed if isinstance(e, QuestionDone)))
    assert out.getvalue().index(f"[Interviewer] {done['said']}") < out.getvalue().index("->")


async def test_a_question_closed_on_an_answer_is_closed_in_a_word_without_a_verdict(graph_driver):
    """Trials: a question closed on an answer in silence, and the review that followed read as the
    session breaking off. The close says so, and neither praises nor judges (the review does)."""
    phrases = load_yaml("offline_wording.yaml")["en"]
    driver = graph_driver(plan=["algo-02"], max_follow_ups=1)
    await driver.start()
    await driver.reply("answer", KL_LEVEL_1)
    await driver.reply("answer", ENTROPY_SAID)
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    assert done["said"] in phrases["closing"]
    skipping = graph_driver(plan=["algo-02"], thread="skip")
    await skipping.start()
    await skipping.reply("answer", "Can we move on?")
    [done] = [e for e in skipping.events if e["type"] == "question_done"]
    assert done["said"] in phrases["closing_skipped"]


@pytest.mark.parametrize(
    ("lang", "wrong"),
    [
        ("en", "PPO takes the max of the clipped and unclipped objective, so every step is as large as it can be."),
        ("zh", "PPO 在 clip 前后两个目标中取较大的那个，这样每一步都尽量走得最远。"),
    ],
)
async def test_a_wrong_claim_the_question_closes_on_is_corrected_as_it_closes(graph_driver, bank, lang, wrong):
    """A trial: a wrong claim in the answer to the last follow-up closed the question on "(a wrong
    claim)" and its review, with not a word on what was wrong; the candidate left believing it."""
    question = bank["algo-07"]
    driver = graph_driver(plan=["algo-07"], max_follow_ups=1, lang=lang)
    await driver.start()
    await driver.reply("answer", "PPO clips the probability ratio to the range 1 minus epsilon to 1 plus epsilon.")
    await driver.reply("answer", wrong)
    assert [m.misconception for m in driver.values["turns"][-1].assessment.misconceptions] == ["ppo-takes-max"]
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    assert done["said"] is not None
    assert question.misconception("ppo-takes-max").correction_in(lang) in done["said"]
    assert wrong.split("，")[0].split(",")[0] in done["said"], "the claim is quoted in the candidate's words"


async def test_a_term_given_to_the_wrong_owner_in_the_last_answer_is_corrected_too(graph_driver, bank):
    """The facts' swaps are misconceptions of every question: the close corrects one like the bank's."""
    driver = graph_driver(plan=["infra-04"], max_follow_ups=1)
    await driver.start()
    await driver.reply("answer", "The long tail means a few very long responses hold up the whole batch.")
    await driver.reply("answer", "It is slow because decode is compute-bound, so a few sequences saturate the SMs.")
    wrong = "misattributed-prefill-compute-bound"
    assert wrong in {m.misconception for m in driver.values["turns"][-1].assessment.misconceptions}
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    assert done["said"] and bank["infra-04"].misconception(wrong).correction_in("en") in done["said"]


async def test_a_wrong_claim_already_challenged_is_not_corrected_again_at_the_close(graph_driver, bank):
    driver = graph_driver(plan=["algo-07"], max_follow_ups=1)
    await driver.start()
    await driver.reply("answer", "PPO takes the max of the clipped and unclipped objective.")
    decision = driver.values["turns"][-1].decision
    assert "ppo-takes-max" in (decision.target, decision.challenge), "challenged at once"
    await driver.reply("answer", "Then the ratio keeps growing: nothing stops the update.")
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    correction = bank["algo-07"].misconception("ppo-takes-max").correction_in("en")
    assert done["said"] and correction not in done["said"] and "takes the max" not in done["said"], done["said"]


async def closed_on(driver, *answers: str) -> dict:
    """Start the driver's one-question plan, give `answers`, and return the question_done event."""
    await driver.start()
    for text in answers:
        await driver.reply("answer", text)
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    return done


FP8_KV = "Shrink what moves: GQA or MLA and an FP8 KV cache cut the bytes per token."


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_question_closed_with_a_part_never_shown_names_that_part(graph_driver, bank, lang):
    """A trial user saw questions close at full depth with a sub-question marked ✗ in the review and
    never mentioned: the close names the part still open, in the candidate's language."""
    done = await closed_on(
        graph_driver(plan=["infra-02"], max_follow_ups=1, lang=lang),
        "With prefill/decode disaggregation the KV cache computed on the prefill GPUs has to reach the "
        "decode GPUs. Send it with GPUDirect RDMA between nodes and NVLink inside a node, layer by layer, "
        "so the transfer overlaps with the prefill of the next layers.",
        FP8_KV,
    )
    strategies = bank["infra-02"].parts[1]
    assert done["parts"][1]["shown"] == 0, done["parts"]
    assert strategies.get(lang)[1:] in done["said"], done["said"]


async def test_a_drilled_question_opened_on_one_point_does_not_name_the_parts_it_never_asked(graph_driver, bank):
    """A drill asks one point's probe: "still open" about the rest of the question read as a
    complaint about parts it never asked (the trial after the change above)."""
    from agent.planning import PlanRequest

    driver = graph_driver(plan=["infra-02"], max_follow_ups=1)
    driver.input["request"] = PlanRequest(ids=["infra-02"], openers={"infra-02": "transfer-mechanics"})
    done = await closed_on(
        driver,
        "The KV cache is sent with GPUDirect RDMA between nodes and over NVLink inside a node, layer by "
        "layer, so the transfer overlaps with the prefill of the later layers.",
        FP8_KV,
    )
    assert done["parts"][0]["shown"] and not done["parts"][1]["shown"], done["parts"]
    assert done["said"] in load_yaml("offline_wording.yaml")["en"]["closing"], done["said"]


async def test_a_question_closed_with_every_part_shown_closes_plainly(graph_driver, bank):
    done = await closed_on(
        graph_driver(plan=["infra-02"], max_follow_ups=1),
        "With prefill/decode disaggregation the KV cache computed on the prefill GPUs has to reach the "
        "decode GPUs, sent with GPUDirect RDMA layer by layer. Inside a node use tensor parallelism over "
        "NVLink, since it needs two all-reduces per layer; across nodes use pipeline parallelism.",
        "I'd also shrink the bytes: GQA and an FP8 KV cache.",
    )
    assert all(p["shown"] for p in done["parts"]), done["parts"]
    assert done["said"] in load_yaml("offline_wording.yaml")["en"]["closing"], done["said"]


async def test_a_clarifying_question_is_answered_from_the_bank_and_the_question_asked_again(graph_driver, bank):
    question = bank["algo-02"]
    direction = next(c for c in question.clarifications if "direction" in c.asks.en)
    driver = graph_driver(plan=KL)
    await driver.start()
    await driver.reply("answer", "Which direction of KL do you mean?")
    waiting = driver.waiting
    assert waiting["kind"] == "ask" and waiting["question"] == "algo-02"
    assert direction.answer.en in waiting["text"]
    assert waiting["text"].endswith(question.prompt.en)
    assert driver.values["turns"][-1].heard is Heard.clarify
    assert driver.progress.follow_ups == 0 and driver.assessments() == [], "not judged, no follow-up used"
    await driver.reply("answer", KL_LEVEL_1)
    assert driver.waiting["kind"] == "follow_up"


async def test_a_clarifying_question_in_chinese(graph_driver, bank):
    question = bank["algo-02"]
    direction = next(c for c in question.clarifications if "direction" in c.asks.en)
    driver = graph_driver(plan=KL, lang="zh")
    await driver.start()
    await driver.reply("answer", "这里的 KL 指的是哪个方向？")
    assert direction.answer.zh in driver.waiting["text"]
    assert driver.waiting["text"].endswith(question.prompt.zh)


@pytest.mark.parametrize(
    ("lang", "asked_back", "says"),
    [("en", "Do you want the formula?", "formula"), ("zh", "需要写公式推导吗？", "公式")],
)
async def test_a_question_about_the_answers_form_gets_a_reply_about_form(graph_driver, bank, lang, asked_back, says):
    """The bank has no entry for it; the reply was "take whichever reading seems most natural to
    you", which answers a question about two readings, not one about formulas or detail."""
    question = bank["algo-07"]
    driver = graph_driver(plan=["algo-07"], lang=lang)
    await driver.start()
    await driver.reply("answer", asked_back)
    assert driver.values["turns"][-1].heard is Heard.clarify
    text = driver.waiting["text"]
    assert says in text and text.endswith(question.prompt.get(lang))
    assert "reading" not in text and "理解" not in text


async def test_repeat_and_wait_in_words_cost_no_follow_up(graph_driver, bank):
    driver = graph_driver(plan=KL)
    await driver.start()
    await driver.reply("answer", KL_LEVEL_1)
    follow_up = driver.waiting
    await driver.reply("answer", "Let me think.")
    waiting = driver.waiting
    assert driver.values["turns"][-1].heard is Heard.wait
    assert waiting["target"] == follow_up["target"] and waiting["follow_ups"] == follow_up["follow_ups"]
    assert bank["algo-02"].key_point(follow_up["target"]).probe.en not in waiting["text"], (
        "it waits, it does not re-ask"
    )
    await driver.reply("answer", "Sorry, could you say that again?")
    again = driver.waiting
    assert driver.values["turns"][-1].heard is Heard.repeat
    assert bank["algo-02"].key_point(follow_up["target"]).probe.en in again["text"]
    assert again["follow_ups"] == follow_up["follow_ups"]
    assert len(driver.assessments()) == 1


async def test_a_hint_asked_for_after_the_last_follow_up_does_not_count_as_one(graph_driver):
    """The side panel showed "追问 4/3" after a hint asked for with the follow-ups spent: the hint is
    given (the candidate's, up to max_hints) but the count stays within the budget."""
    driver = graph_driver(plan=KL, max_follow_ups=1)
    await driver.start()
    await driver.reply("answer", KL_LEVEL_1)
    assert (driver.waiting["kind"], driver.waiting["follow_ups"]) == ("follow_up", 1), "the budget is spent"
    await driver.reply("hint")
    hint = driver.waiting
    assert hint["kind"] == "hint" and hint["question"] == KL[0], "a hint asked for is given past the budget"
    assert hint["follow_ups"] == 1
    await driver.reply("hint")
    assert driver.waiting["kind"] == "hint" and driver.waiting["follow_ups"] == 1


@pytest.mark.parametrize(("lang", "bare"), [("en", "No."), ("zh", "对。")])
async def test_a_bare_yes_or_no_is_asked_why_once_then_judged(graph_driver, bank, lang, bare):
    """ "No." to a yes-or-no follow-up was read as off-topic ("Let's stick to the question") and the
    interviewer moved to another target; across a table one asks why."""
    driver = graph_driver(plan=KL, lang=lang)
    await driver.start()
    await driver.reply("answer", KL_LEVEL_1)
    follow_up = driver.waiting
    await driver.reply("answer", bare)
    why = driver.waiting
    assert driver.values["turns"][-1].heard is Heard.terse
    assert (why["target"], why["follow_ups"]) == (follow_up["target"], follow_up["follow_ups"])
    assert why["answering"] == "terse" and why["text"] != follow_up["text"]
    assert len(driver.assessments()) == 1, "nothing judged yet"
    await driver.reply("answer", bare)
    assert driver.values["turns"][-1].heard is None, "the second bare reply is the answer"
    assert len(driver.assessments()) == 2
    assert driver.waiting["follow_ups"] == follow_up["follow_ups"] + 1 or driver.waiting["kind"] == "ask"


async def test_the_repeat_key_after_a_pause_says_the_follow_up_again(graph_driver, bank):
    """A Chinese tester pressed /repeat after "让我想想" and was told "好的，想好了再说。" again."""
    driver = graph_driver(plan=KL, lang="zh")
    await driver.start()
    await driver.reply("answer", KL_LEVEL_1)
    follow_up = driver.waiting
    await driver.reply("answer", "让我想想。")
    assert driver.waiting["text"] != follow_up["text"]
    await driver.reply("repeat")
    probe = bank["algo-02"].key_point(follow_up["target"]).probe.zh
    assert probe in follow_up["text"] and probe in driver.waiting["text"]
    assert len(driver.assessments()) == 1


@pytest.mark.parametrize(
    "words",
    [
        "给个提示",
        "能再给个提示吗？",
        "Can I get a hint?",
        # A trial: taken for an answer (flagged off_topic) because the thinking aloud made it long.
        "Hmm, let me think for a moment. Could you give me a hint about what you're looking for on the epochs part?",
        "让我想一想。能不能给我一点提示，你想听的是哪一部分？",
    ],
)
async def test_a_hint_asked_for_in_words_is_not_judged_as_an_answer(graph_driver, words):
    """A hint request in words was judged too, and shown as "(off_topic)"."""
    driver = graph_driver(plan=KL, lang="zh")
    await driver.start()
    await driver.reply("answer", KL_LEVEL_1)
    await driver.reply("answer", words)
    assert driver.values["turns"][-1].action is CandidateAction.hint
    assert Flag.off_topic.value not in driver.assessments()[-1]["flags"]
    assert driver.waiting["kind"] == "hint"


async def test_a_hint_that_only_asks_the_probe_again_is_passed_over(bank, notes_retriever):
    """A trial: right after the probe "For a token with positive advantage, what happens to its
    gradient ...?", the first hint asked "For which tokens does clipping actually change the
    gradient?", the same question again. Once the probe is asked, the ladder starts a rung higher.
    (The bank's hints no longer do this; a question of the user's own may, so that hint is put back.)"""
    question = bank["algo-07"]
    point = question.key_point("zero-gradient-cases")
    again = point.hints[0].model_copy(update={"en": "For which tokens does clipping actually change the gradient?"})
    point = point.model_copy(update={"hints": [again, *point.hints[1:]]})
    question = question.model_copy(
        update={"key_points": [point if kp.id == point.id else kp for kp in question.key_points]}
    )
    assert restates_its_probe(question, point.id, "en"), "the test's premise"
    driver = GraphDriver({**bank, "algo-07": question}, notes_retriever, ["algo-07"])
    await driver.start()
    await driver.reply("answer", "PPO clips the ratio to 1 plus or minus epsilon.")
    assert driver.waiting["target"] == point.id and point.probe.en in driver.waiting["text"]
    await driver.reply("hint", "")
    hint = driver.waiting["text"]
    assert point.hints[1].en in hint and point.hints[0].en not in hint
    await driver.reply("hint", "")
    assert point.hints[2].en in driver.waiting["text"], "and it keeps climbing"


async def test_a_hint_asked_for_past_max_hints_closes_the_question_saying_why(graph_driver):
    """A trial's third /hint on a question got "That's where we'll stop on this one.", as if nothing
    had been asked."""
    phrases = load_yaml("offline_wording.yaml")["en"]
    driver = graph_driver(plan=["algo-07"], max_follow_ups=5)
    await driver.start()
    await driver.reply("answer", "PPO clips the ratio to 1 plus or minus epsilon.")
    kinds = []
    for _ in range(4):
        if driver.waiting is None or driver.waiting["question"] != "algo-07":
            break
        kinds.append(driver.waiting["kind"])
        await driver.reply("hint", "")
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    assert kinds.count("hint") == 2, kinds  # max_hints
    assert done["said"] in phrases["closing_no_hint"]


async def test_a_bare_bu_zhidao_is_dont_know_not_an_empty_reply(graph_driver):
    driver = graph_driver(plan=KL, lang="zh")
    await driver.start()
    await driver.reply("answer", "不知道")
    flags = driver.assessments()[-1]["flags"]
    assert Flag.dont_know.value in flags and Flag.empty.value not in flags
    assert driver.waiting["kind"] == "hint", 'as after "I don\'t know" to the question: a hint first'


async def test_a_request_to_move_on_closes_the_question(graph_driver):
    for thread, words in (("en", "Can we move on?"), ("zh", "下一题吧。")):
        driver = graph_driver(plan=KL, thread=thread)
        await driver.start()
        await driver.reply("answer", KL_LEVEL_1)
        await driver.reply("answer", words)
        assert driver.waiting["question"] == "infra-10"
        assert driver.values["turns"][-1].action is CandidateAction.skip
        assert driver.values["turns"][-1].decision.why == "the candidate skipped"
        assert driver.values["summaries"][0].depth >= 1, "what was shown before still counts"


async def test_every_part_is_touched_before_any_depth_probe(graph_driver, bank):
    """algo-07 asks four things: the follow-ups walk the untouched parts in order, one each."""
    question = bank["algo-07"]
    first = question.parts[0]
    driver = graph_driver(plan=["algo-07"], max_follow_ups=6)
    await driver.start()
    await driver.reply(
        "answer", " ".join(explain(kp.cues.en[0]) for kp in question.points_of(first.id) if kp.level <= 2)
    )
    visited = []
    for _ in range(len(question.parts) - 1):
        waiting = driver.waiting
        assert waiting["kind"] == "follow_up"
        part = question.key_point(waiting["target"]).part
        visited.append(part)
        await driver.reply("answer", explain(question.key_point(waiting["target"]).cues.en[0]))
    assert visited == [p.id for p in question.parts[1:]]


async def test_no_two_lines_in_a_row_open_alike(graph_driver, bank):
    driver = graph_driver(plan=["algo-07", "infra-12", "algo-05"], max_follow_ups=4)
    await driver.start()
    lines = []
    while driver.waiting is not None:
        waiting = driver.waiting
        if waiting["kind"] != "ask":
            lines.append(waiting["text"])
        question = bank[waiting["question"]]
        target = waiting.get("target")
        point = question.key_point(target) if target in {kp.id for kp in question.key_points} else None
        await driver.reply("answer", explain(point.cues.en[0]) if point else explain(question.key_points[0].cues.en[0]))
    assert len(lines) >= 6
    assert all(opening(a) != opening(b) for a, b in itertools.pairwise(lines)), lines


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_reviews_show_part_coverage_and_what_came_with_a_hint(graph_driver, bank, lang):
    """The plain front end's review line, the report and the TUI review all show the parts, in the
    session's language (a Chinese session's report had English headings)."""
    from agent.interview.report import build_report, to_markdown
    from tui.screens.review import review_markdown

    question = bank["algo-07"]
    driver = graph_driver(plan=["algo-07"], lang=lang)
    await driver.start()
    await driver.reply("hint")
    hinted = question.key_point(driver.waiting["target"])
    await driver.reply("answer", explain(hinted.cues.en[0]))
    await driver.reply("skip")
    done = next(e for e in driver.streamed if isinstance(e, QuestionDone))
    out = io.StringIO()
    Renderer(out, jsonl=False, bank=bank, lang=lang).show(done)
    text = out.getvalue()
    of = len(question.points_of(hinted.part))
    report = to_markdown(build_report(driver.values, bank, driver.context.retriever), bank)
    review = review_markdown(driver.values["summaries"][0], question, lang)
    for part in question.parts:
        assert part.get(lang) in text and part.get(lang) in report and part.get(lang) in review
    missed = question.key_point(driver.values["summaries"][0].missed[0])
    said = {"en": (missed.statement, question.model_answer), "zh": (missed.statement_zh, question.model_answer_zh)}
    for other in said:  # the bank's own texts, in the session's language only
        statement, model_answer = (t.strip().splitlines()[0] for t in said[other])
        for shown in (report, review.replace("\\*", "*")):  # the review's Markdown escapes a statement's "*"
            assert (statement in shown and model_answer in shown) is (other == lang), other
    if lang == "en":
        assert f"1 of {of} key point{'s' * (of != 1)} (with a hint)" in text
        assert f"with a hint: “{hinted.statement[:30]}" in text and "done at depth" in text
        assert "Parts:" in report and f"{hinted.statement} (level {hinted.level}, with a hint)" in report
        assert "## Parts of the question" in review and "with a hint" in review
    else:
        assert f"{of} 个要点中答到 1 个（有提示）" in text
        assert f"有提示的：“{hinted.statement_zh[:15]}" in text and "结束，深度" in text
        assert "题目各部分：" in report and f"{hinted.statement_zh}（第 {hinted.level} 层，有提示）" in report
        assert "## 题目各部分" in review and "有提示" in review
        english = ["Parts", "Shown", "Not shown", "Model answer", "with a hint", "Interview report", "Status", "depth"]
        for words in english:
            assert words not in text and words not in review.split("\n", 1)[0], words
        headings = [line for line in report.splitlines() if line.startswith("#") or line.endswith(("：", ":"))]
        assert headings and not any(w in h for h in headings for w in english), headings


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_part_whose_concept_was_named_is_taken_further_not_called_unanswered(graph_driver, bank, lang):
    """The answer named clipping (a level-1 point of the part "how clipping works"); the follow-up on
    that part's mechanism must not say the part has not been answered."""
    question = bank["algo-07"]
    driver = graph_driver(plan=["algo-07"], lang=lang)
    await driver.start()
    await driver.reply(
        "answer", "PPO clips the probability ratio between the new and the old policy to [1-eps, 1+eps]."
    )
    shown = {e.key_point for e in driver.progress.assessment.covered}
    target = question.key_point(driver.waiting["target"])
    assert any(kp.id in shown for kp in question.points_of(target.part)), "the target's part had its concept named"
    text = driver.waiting["text"]
    assert part_name(question.part(target.part), lang) in text
    assert not any(words in text for words in ("haven't answered", "haven't got to", "还没回答", "另一部分"))


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "PPO takes the max of the clipped and unclipped objective, so every step is as large as possible."),
        ("zh", "PPO 在两个目标之间取的是 max，这样每一步都尽可能大。"),
    ],
)
async def test_an_answer_standing_on_a_wrong_claim_is_corrected_and_redirected_with_a_hint(
    graph_driver, bank, lang, answer
):
    """An answer whose only claim is wrong shows nothing: the interviewer names the claim in the
    candidate's words and gives a nudge toward what the claim gets wrong, the claim's own check
    (not a probe the candidate has no footing for); what is shown next is marked as coming with a
    hint."""
    question = bank["algo-07"]
    wrong = question.misconception("ppo-takes-max")
    driver = graph_driver(plan=["algo-07"], lang=lang)
    await driver.start()
    await driver.reply("answer", answer)
    assessment = driver.progress.assessment
    assert assessment.depth == 0 and wrong.id in {m.misconception for m in assessment.misconceptions}
    waiting = driver.waiting
    assert waiting["kind"] == "hint"
    target = question.key_point(waiting["target"])
    assert target.id == "why-min-pessimistic", "the hint helps with what taking the max gets wrong"
    assert wrong.challenge is not None
    check = wrong.challenge.get(lang)
    assert check in waiting["text"]
    assert target.statement not in waiting["text"] and wrong.correction not in waiting["text"]
    assert ("max" in waiting["text"]) and waiting["text"].index("max") < waiting["text"].index(check)
    await driver.reply("answer", explain(target.cues.en[0]))
    shown = next(e for e in driver.progress.assessment.covered if e.key_point == target.id)
    assert shown.hinted


async def test_a_pause_or_a_question_back_is_answered_as_the_interviewer_and_a_repeat_asks_again(graph_driver):
    """The reply keeps the prompt's kind (a hint stays a hint for the policy) but says what it
    answers, so front ends label it as the interviewer's line, not as another hint."""
    driver = graph_driver(plan=KL)
    await driver.start()
    await driver.reply("answer", "I don't know.")
    assert (driver.waiting["kind"], driver.waiting["answering"]) == ("hint", None)
    await driver.reply("answer", "Let me think.")
    assert (driver.waiting["kind"], driver.waiting["answering"]) == ("hint", "wait")
    await driver.reply("answer", "Can you repeat that?")
    assert driver.waiting["answering"] is None


async def test_a_drill_does_not_ask_for_what_earlier_drills_showed(graph_driver, bank):
    """A drill said "Now a part you haven't answered yet: how the advantage is computed in GRPO",
    a part the previous session had credited (a user trial)."""
    from agent.planning import PlanRequest

    question = bank["algo-05"]
    shown = "grpo-group-normalized"
    assert question.key_point(shown).part == "grpo-advantage" and len(question.points_of("grpo-advantage")) == 1
    gap = [kp.id for kp in question.key_points if kp.id != shown]
    driver = graph_driver(plan=["algo-05"])
    driver.input["request"] = PlanRequest(ids=["algo-05"], drill=True, gaps={"algo-05": gap})
    await driver.start()
    await driver.reply("answer", "PPO gets the advantage from the critic with GAE.")
    asked = []
    while driver.waiting and driver.waiting["question"] == "algo-05" and len(asked) < 6:
        asked.append(driver.waiting)
        await driver.reply("answer", "Not sure, something about the value function.")
    assert asked, "the drill follows up"
    assert all(turn["target"] != shown for turn in asked)
    assert not any("advantage computed in GRPO" in turn["text"] for turn in asked)


async def test_a_swap_challenged_and_corrected_is_not_reminded_at_the_close(graph_driver):
    """A trial: "SGLang 用的是 PagedAttention，vLLM 是 RadixAttention" gives two terms to the wrong
    owners, one confusion. It was challenged, the candidate corrected it, and the close still said
    "最后提醒一句：你说“SGLang 用的是 PagedAttention……”，这是不对的": the other owner had not been probed."""
    phrases = load_yaml("offline_wording.yaml")["zh"]
    driver = graph_driver(plan=["infra-05"], lang="zh", max_follow_ups=1)
    await driver.start()
    await driver.reply(
        "answer", "vLLM 和 SGLang 的区别：SGLang 用的是 PagedAttention 管理 KV cache，vLLM 是 RadixAttention。"
    )
    wrong = driver.progress.assessment.misconceptions
    assert len(wrong) == 2 and len({hit.quote for hit in wrong}) == 1, "two owners swapped in one sentence"
    assert "PagedAttention" in driver.waiting["text"], "challenged at once"
    assert set(driver.progress.probed) & {hit.misconception for hit in wrong}
    await driver.reply("answer", "不好意思我说反了。PagedAttention 是 vLLM 提出的，RadixAttention 是 SGLang 的。")
    [done] = [e for e in driver.events if e["type"] == "question_done"]
    assert done["said"] is None or not any(
        done["said"].startswith(line.split("“")[0]) for line in phrases["closing_correction"]
    ), done["said"]
    # The review and report keep the swap, with the sentence that put it right; progress does not hold it.
    [summary] = driver.values["summaries"]
    assert {hit.put_right for hit in summary.misconceptions} == {
        "PagedAttention 是 vLLM 提出的，RadixAttention 是 SGLang 的。"
    }
    [attempt] = attempts_in(driver.values, lambda _: datetime(2026, 12, 1, tzinfo=UTC))
    assert attempt.misconceptions == {}


async def test_a_wrong_origin_is_put_right_by_giving_the_work_its_own_lab(graph_driver):
    """Blind trial 35's plant, corrected: the reply names no term the first answer gave away (Google
    DeepMind), it gives ProRL its own lab, and that puts the origin right."""
    driver = graph_driver(plan=["algo-16"], lang="en", max_follow_ups=1)
    await driver.start()
    await driver.reply(
        "answer",
        "ProRL, the prolonged-RL paper from Google DeepMind, trained a 1.5B model for over 2,000 RL steps on "
        "math, code and logic puzzles, and pass@k kept rising.",
    )
    assert [m.misconception for m in driver.progress.assessment.misconceptions] == [
        "misattributed-algorithm-from-google"
    ]
    await driver.reply("answer", "Sorry, I mixed that up. ProRL is NVIDIA's work, not DeepMind's.")
    [summary] = driver.values["summaries"]
    assert [hit.put_right for hit in summary.misconceptions] == ["ProRL is NVIDIA's work, not DeepMind's."]


async def test_a_misconception_shown_wrong_later_is_put_right(graph_driver):
    """Blind trial 40: challenged on "baseline adds bias", the candidate derived E[∇log π · b] = 0;
    the report still listed the claim as held, without the sentence that put it right."""
    driver = graph_driver(plan=["algo-05"], lang="zh", max_follow_ups=1)
    await driver.start()
    wrong = "减去 baseline 会引入偏差，只是方差降低得更多，所以整体上还是划算的。"
    await driver.reply("answer", "GRPO 用组内均值当 baseline。" + wrong)
    assert [m.misconception for m in driver.progress.assessment.misconceptions] == ["baseline-adds-bias"]
    right = "因为 baseline 不依赖动作，E[∇log π · b] = b · ∇Σπ = 0，减掉它梯度仍然无偏，只是方差变小。"
    await driver.reply("answer", "你说得对，我刚才说错了。" + right)
    [summary] = driver.values["summaries"]
    assert [(hit.quote, hit.put_right) for hit in summary.misconceptions] == [(wrong, right)]


async def test_a_misconception_is_put_right_by_the_point_it_names_as_the_one_it_gets_wrong(graph_driver, bank):
    """Blind trial 41: "OPD 的损失用的是前向 KL，也就是 KL(老师‖学生)" shares most words with the point on
    SFT, so the reverse-KL derivation after the challenge did not count as putting it right; the
    misconception names the point it gets wrong (`gets_wrong`)."""
    driver = graph_driver(plan=["algo-17"], lang="zh", max_follow_ups=1)
    await driver.start()
    wrong = "OPD 用前向 KL，也就是 KL(老师‖学生)，所以是 mode-covering 的。"
    await driver.reply("answer", "学生自己采样，老师给每个 token 打分。" + wrong)
    assert [m.misconception for m in driver.progress.assessment.misconceptions] == ["opd-forward-kl"]
    right = (
        "在学生自己采的样本上算 log π_学生 − log π_老师，期望就是 KL(学生‖老师)，也就是反向 KL，是 mode-seeking 的。"
    )
    await driver.reply("answer", "您说得对，我说错了，收回。" + right)
    [summary] = driver.values["summaries"]
    [hit] = summary.misconceptions
    assert hit.quote == wrong and hit.put_right and hit.put_right in right
    # the plain screen lists it as put right, and says what it costs (it was only in the report)
    done = next(e for e in driver.streamed if isinstance(e, QuestionDone))
    out = io.StringIO()
    Renderer(out, jsonl=False, bank=bank, lang="zh").show(done)
    assert "“OPD 用前向 KL" in out.getvalue() and "后来已改正" in out.getvalue(), out.getvalue()
    assert ("进度里这道题按 2/4 计" in out.getvalue()) is (summary.depth > 2), out.getvalue()


async def test_a_trend_turned_round_is_put_right_by_saying_it_the_right_way(graph_driver):
    """Blind trial 42: "the larger the KL coefficient, the more the policy is pushed away from the
    reference", retracted with "a larger KL coefficient restricts exploration", stayed held."""
    driver = graph_driver(plan=["algo-06"], lang="en", max_follow_ups=1)
    await driver.start()
    wrong = "The larger the KL coefficient, the more the policy is pushed away from the reference model."
    await driver.reply("answer", "RL explores by sampling at temperature 1. " + wrong)
    assert "reversed-kl-coefficient" in {m.misconception for m in driver.progress.assessment.misconceptions}
    right = "It pulls the policy back toward the reference model, so a larger KL coefficient restricts exploration."
    await driver.reply("answer", "I need to correct that. " + right)
    [summary] = driver.values["summaries"]
    assert [(hit.quote, hit.put_right) for hit in summary.misconceptions] == [(wrong, right)]


async def test_a_misconception_said_twice_is_quoted_as_first_said_and_stays(graph_driver):
    """The review quotes a wrong claim where it was first made (a retraction misread as the claim had
    been quoted in its place), and one repeated is not put right."""
    driver = graph_driver(plan=["algo-05"], lang="zh", max_follow_ups=1)
    await driver.start()
    wrong = "减去 baseline 会引入偏差，只是方差降低得更多，所以整体上还是划算的。"
    await driver.reply("answer", "GRPO 用组内均值当 baseline。" + wrong)
    await driver.reply("answer", "我还是觉得减均值会有偏，只不过偏差很小，可以忽略。")
    [summary] = driver.values["summaries"]
    assert [(hit.quote, hit.put_right) for hit in summary.misconceptions] == [(wrong, None)]


async def test_a_swap_not_put_right_stays_against_the_candidate(graph_driver):
    driver = graph_driver(plan=["infra-05"], lang="zh", max_follow_ups=1)
    await driver.start()
    await driver.reply(
        "answer", "vLLM 和 SGLang 的区别：SGLang 用的是 PagedAttention 管理 KV cache，vLLM 是 RadixAttention。"
    )
    await driver.reply("answer", "我觉得就是这样，SGLang 的 PagedAttention 更快。")
    [summary] = driver.values["summaries"]
    assert summary.misconceptions and not any(hit.put_right for hit in summary.misconceptions)
    done = next(e for e in driver.streamed if isinstance(e, QuestionDone))
    assert [w.put_right for w in done.wrong] == [None], "one sentence swapping two owners: one wrong claim"
    [attempt] = attempts_in(driver.values, lambda _: datetime(2026, 12, 1, tzinfo=UTC))
    assert set(attempt.misconceptions) == {hit.misconception for hit in summary.misconceptions}


@pytest.mark.parametrize("earlier_said_it", [True, False])
def test_a_protest_is_told_whether_its_claim_was_there_before(bank, earlier_said_it):
    """A trial was told "你说得对，你确实讲过：…" over a sentence it had only just written in its
    protest: what the earlier answers hold is "you did say it"; what only the protest adds counts,
    said so."""
    question = bank["algo-02"]
    entropy = question.key_point("entropy-constant-same-gradient")
    claim = "The entropy of the data is a constant, so it has no gradient."
    first = Turn(
        question="algo-02", kind="ask", asked="?", answer=KL_LEVEL_1 + (f" {claim}" if earlier_said_it else "")
    )
    protest = Turn(
        question="algo-02",
        kind="follow_up",
        asked="Which term drops out?",
        target=entropy.id,
        answer="I already said that." + ("" if earlier_said_it else f" {claim}"),
        heard=Heard.already_said,
    )
    covered = [Evidence(key_point=entropy.id, level=entropy.level, quote=claim, how="recalled")]
    assessment = Assessment(question="algo-02", depth=2, answer_depth=2, covered=covered, new=[entropy.id])
    progress = QuestionProgress(assessment=assessment, probed=(entropy.id,), follow_ups=1)
    decision = next_decision(question, progress, [first, protest], Limits(follow_ups=3, hints=2))
    assert decision.said and decision.said in claim
    assert decision.said_now is not earlier_said_it


@pytest.mark.parametrize(
    ("lang", "last"),
    [
        (
            "en",
            "Each rank keeps its query block and passes K/V blocks round the ring. What limits Ulysses, I don't know.",
        ),
        ("zh", "每个 rank 留着自己的 Q 块，K/V 块沿环传递。Ulysses 的并行度受什么限制，这个我不知道。"),
    ],
)
async def test_a_question_closed_on_an_admitted_gap_says_where_that_part_is_answered(graph_driver, lang, last):
    """A trial's last reply said it did not know what limits Ulysses, and the question closed on a bare
    "这道题就先到这里": the close points to the review, where the key point is."""
    done = await closed_on(
        graph_driver(plan=["infra-11"], max_follow_ups=1, lang=lang),
        "Context parallelism splits the sequence across ranks and overlaps the K/V transfer with attention. "
        "Megatron splits each layer's matrices across GPUs (tensor parallel) and stages across nodes, while "
        "FSDP shards parameters, gradients and optimizer state and all-gathers each layer before it runs.",
        last,
    )
    assert all(p["shown"] for p in done["parts"]), done["parts"]
    assert done["said"] in load_yaml("offline_wording.yaml")[lang]["closing_gap"], done["said"]
