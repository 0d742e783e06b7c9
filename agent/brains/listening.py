"""Hearing the candidate: what a reply in words asks of the interviewer, the content left once the
talk about the conversation is taken out, and what the candidate has already said toward a target.

English and Chinese (and a mix). A reply is heard as a request only when the request is all there
is, or when it opens the reply: "As I said, the ratio is clipped..." is an answer that restates,
"I just said it: H(p) does not depend on theta" is a protest that also carries content.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from agent.judge.claims import cannot_be_taken_for
from agent.state import Assessment, Evidence, Heard, Turn
from agent.text import (
    CJK_CHAR,
    DONT_KNOW,
    HINT_REQUEST,
    WORD,
    explains,
    find_cue,
    normalise,
    one_per_line,
    sentences,
    size,
    stems,
)
from knowledge.models import Clarification, KeyPoint, Question

_I = re.IGNORECASE

PROTEST = re.compile(
    r"\b(i|i've|i have|i had)\s+(already|just)\s+(said|told you|mentioned|explained|covered|answered|gave)\b|"
    r"\bi\s+(said|mentioned|explained|covered|answered)\s+(that|this|it)\s+(already|before|earlier|above|just now)\b|"
    r"\b(already|just)\s+(said|told you|covered|answered|explained)\s+(that|this|it)\b|"
    r"\bi\s+did\s+(say|mention|explain|cover|answer)\s+(that|this|it)\b|\bthat'?s what i (just )?said\b|"
    r"^\s*i\s+did\s+(give|say|mention|explain|cover|answer|list|name|describe)\b|"
    r"\b(did|didn'?t) you (not )?(read|hear|see) (my|what i)\b|\bit'?s in my (first |previous |earlier )?answer\b|"
    r"我(刚才|刚刚|之前|前面|上面|已经|早就)?(已经)?(都)?(说|讲|提|解释|回答|答)(过了?|了)(吗|啊|呀)?|我不是(说|讲)(过了?|了)(吗|啊)?|"
    r"(刚才|刚刚|前面|之前|上面)(已经|都)?(说|讲|提|回答)(过了?|了)|已经(说|讲|回答|解释)(过了?|了)",
    _I,
)
REPEAT = re.compile(
    r"\b(can|could|would) you (please )?(repeat|say (that|it) again|ask (that|it) again|rephrase)\b|"
    r"\brepeat (the|that|your) question\b|\b(say|ask) (that|it) again\b|^\s*(pardon|come again|sorry)\s*\??\s*$|"
    r"\bi didn'?t (catch|hear|get) (that|the question|what you)|\bwhat was the question\b|"
    r"再说一遍|再讲一遍|再问一遍|重复一下|重复一遍|没听清|题目是什么|能再说",
    _I,
)
WAIT = re.compile(
    r"\blet me (think|see|gather my thoughts)\b|\b(one|a|just a) (moment|sec|second|minute)\b|"
    r"\bgive me a (moment|sec|second|minute)\b|\bhold on\b|\b(i'?m|i am|still) thinking\b|^\s*thinking\s*[.…!]*\s*$|"
    r"^\s*(hmm+|um+|uh+)[\s.!…]*$|"
    r"让我想想|我想一下|我想想|想一想|等一下|等我想|稍等|等等|容我想",
    _I,
)
MOVE_ON = re.compile(
    r"\b(can|could|shall|may) we (please )?(move on|skip|go to the next)|"
    r"\b(let'?s|i'?d like to|i want to|please) (just )?(move on|skip (this|it)|go to the next)|"
    r"\bnext question\b|\bskip (this|it|that)( one| question)?\b|^\s*(move on|skip|pass)\s*[.!]?\s*$|"
    r"下一题|换一题|换个问题|下一个问题|跳过|这题算了",
    _I,
)
HINT_AGAIN = re.compile(
    r"\b(another|one more|more|a second|a further|a bigger|a stronger) (hint|clue|pointer|nudge)s?\b|"
    r"再(给|来)(我)?(一?个|一点)?提示|再提示一下|多给(点|一点)提示",
    _I,
)
"""Asking for a further hint, in words (a first one is agent.text.HINT_REQUEST)."""
CLARIFY = re.compile(
    r"^\s*(do|did) you mean\b|^\s*you mean\b|^\s*are you asking\b|^\s*(is|are) (this|that|it|we) (about|for|asking)\b|"
    r"^\s*(should|shall|do|must) i (assume|consider|focus|talk|cover|include)\b|^\s*can i assume\b|"
    r"^\s*what do you mean\b|\bdo you mean\b|\bwith or without\b|\bor (just |only )?\w+(-\w+)?\s*\?\s*$|"
    r"^\s*which (one|kind|version|direction|setting|case)\b|^\s*(are|is) we talking about\b|"
    r"^\s*what(?:'s| is) the (setting|scale|context|scenario|use case|assumption)\b|"
    r"\b(do you want|would you like) me to\b|"
    r"你是说|你指的是|是指|指的是|问的是|要不要考虑|需不要|是不是指|还是.{0,20}[？?]\s*$|考虑.{0,20}还是|[，,]\s*还是|"
    r"你是想让我|你是要我|是想问|什么规模|多大规模|什么场景|哪种场景|哪个场景|哪个版本|什么前提|什么设定",
    _I,
)
ABOUT_FORM = re.compile(
    r"\b(formulas?|equations?|math|maths|derivations?|derive|proofs?|how (much )?detail(ed)?|how deep|how long|"
    r"in depth|high[- ]level|code|pseudo-?code|examples?)\b|公式|推导|数学|证明|多详细|多深|多长|细节|代码|伪代码|例子|举例",
    re.IGNORECASE,
)
"""A question back about the answer's form (formulas? how detailed?) rather than about what is asked."""
QUESTION_END = re.compile(r"[?？][\s.…]*$|[吗呢][。.]?\s*$")
CAUSAL = re.compile(
    r"\b(because|since|so that|therefore|thus|hence|which means)\b|^\s*(so|then)\b|因为|所以|因此|从而|导致", re.I
)
"""A question with a reason in it is a tentative answer ("Is it because the ratio is clipped?")."""
TENTATIVE = re.compile(
    r"\b((?<!should )(?<!shall )(?<!can )(?<!must )(?<!do )i (guess|think|believe|suppose|assume)|my guess|maybe|perhaps|probably|i'?d say)\b|"
    r"我猜|我觉得|我认为|我理解|应该是|大概是|可能是|估计是",
    re.I,
)
"""So is a question that hedges the candidate's own claim ("I guess the student samples itself?"):
a clarifying question asks about the question, not about what the candidate believes."""
DEPENDS = re.compile(
    r"\bit (all )?depends\b|\bdepends on\b|\b(answer|choice|pick)( would be| is|'s)( completely| totally| very| quite)? "
    r"different\b|\b(that's|that is|it's|it is) (a )?(quite |very |pretty )?(broad|wide|open)( question)?\b|"
    r"要看|看情况|取决于|完全不一样|完全不同|会不一样|不一样的?答案|先确认一下|先问一下|范围(?:挺|很|太|有点)?(?:大|广)|宽泛",
    _I,
)
"""A remark beside a question back that claims nothing ("The answer is completely different.",
"有没有这个前提我选的会完全不一样。"): the reply is still a question back."""
ASK_BACK_WORDS = 25
ASK_BACK_MOST = 60
FILLER = re.compile(
    r"^\s*(?:(?:yeah|yes|ok(?:ay)?|so|well|hmm+|um+|uh+|sure|right|alright|good question|great question|"
    r"thanks|thank you|honestly|basically|i mean)(?:[\s,.!…:;—]+|\s*-+\s+|$))+|"
    r"^\s*(?:(?:嗯+|哦+|啊+)[\s,，.。!！…：:；;—-]*|(?:好的|好|这个嘛|这个|那个|对|是的|好问题)[\s,，.。!！…：:；;—-]+)+",
    _I,
)
"""Openings that are talk, not content. A word that also starts content ("right-hand", "好处", "对于",
"这个系数") is a filler only when a pause (space or punctuation) follows it."""
AS_I_SAID = re.compile(
    r"\bas i (said|mentioned|explained)( (before|earlier|above|already))?\b|(就像|正如)我(刚才|之前|前面)?(说|讲)(的|过)",
    _I,
)
META_LEAD = re.compile(
    rf"^\s*(?:{PROTEST.pattern}|{WAIT.pattern}|{AS_I_SAID.pattern})[^\w\u3400-\u9fff(]*(?:(?:it|that|this)\b[\s,.!…:;—-]*)?",
    _I,
)
"""A protest or a pause at the start of a sentence, with its punctuation ("I just said it: ")."""

BARE_YES_NO = re.compile(
    r"^\s*(?:(?:yes|yeah|yep|yup|no|nope|nah|sure|correct|right|true|false|not really|of course|definitely|"
    r"absolutely|i (?:don'?t )?think so)(?:,?\s+(?:it|they|that|this|you|we|i)\s+(?:do|does|did|is|are|was|will|"
    r"can|would|should|has|have|must)(?:n'?t| not)?)?|"
    r"(?:是的?|对的?|不是|不对|会的?|不会|有的?|没有|没|要|不要|需要|不需要|可以|不可以|能|不能|当然|当然不是?|"
    r"肯定|肯定不是?|是啊|对啊|对呀|是呀|嗯对)(?:的|啊|呀)?)[\s.!。！…]*$",
    _I,
)
"""A reply that is only a yes or a no, to a question that asked for one or not: it carries no
reasoning to judge, so the interviewer asks for it, as one would across a table."""

SHORT_WORDS = 14
"""A reply this size or under that makes a request is only the request (no content to judge)."""


@dataclass(frozen=True)
class Reply:
    """What the interviewer heard: a request (or none), and the content to judge."""

    heard: Heard | None
    content: str
    """The reply without its talk about the conversation (exact substrings of it, in order)."""


ABOUT_THE_QUOTE = re.compile(
    r"\b(?:the|that|this|your) (?:sentence|quote|line|part|clause|bit|passage|phrase)s? (?:that )?you "
    r"(?:just )?(?:quoted|cited|picked|highlighted|read back|quote|cite)\b|\bwhat you (?:just )?quoted\b|"
    r"你(?:刚才|刚刚)?(?:引用|引|摘|挑|拿出来)的(?:那|这)?(?:一)?(?:句|段|部分|话)",
    _I,
)
"""A sentence about the interviewer's quote is talk about the conversation ("Also, the sentence you
quoted was about the rollout engine, not about pi_old.", blind trial 40, was charged with the
misconception its neighbour had been challenged on, and later credited as a key point)."""


def strip_meta(text: str) -> str:
    """The reply's content: sentences with their leading fillers, protests and pauses removed, and
    the sentences that are nothing but such talk, or talk about the interviewer's quote, left out."""
    kept = []
    for sentence in sentences(text):
        rest = sentence
        while True:
            cut = FILLER.match(rest) or META_LEAD.match(rest)
            if not cut or not cut.group(0):
                break
            rest = rest[cut.end() :]
        rest = rest.strip()
        if rest and not _only_meta(rest) and not ABOUT_THE_QUOTE.search(rest):
            kept.append(rest)
    return one_per_line(kept)


def _only_meta(sentence: str) -> bool:
    """A sentence with nothing to judge once the request in it is taken out. "不知道" alone is not
    such a sentence: it tells the judge the candidate does not know (it was read as an empty reply);
    nor is a one-word answer ("verl.", "不保留。"), which takes nothing out."""
    if DONT_KNOW.search(sentence):
        return False
    leftover = sentence
    for pattern in (PROTEST, WAIT, REPEAT, MOVE_ON, HINT_REQUEST, HINT_AGAIN):
        leftover = pattern.sub(" ", leftover)
    leftover = re.sub(
        r"\b(i|you|it|that|this|the|a|me|my|please|again|so|now|just|can|could|we|let'?s|ok|okay)\b",
        " ",
        leftover,
        flags=_I,
    )
    left = size(re.sub(r"[^\w\u3400-\u9fff]+", " ", leftover))
    # A short reply with no talk about the conversation in it is an answer: "verl.", "不保留。".
    return left < 2 and left < size(re.sub(r"[^\w\u3400-\u9fff]+", " ", sentence))


def hear(text: str, question: Question | None = None) -> Reply:
    """What a reply in words asks of the interviewer. A hint request is the key action's business
    (agent.text.HINT_REQUEST) and is not heard here. A short question back without a reason in it
    is a clarifying question, and so is one the bank's clarifications for `question` answer."""
    content = strip_meta(text)
    if HINT_REQUEST.search(text) or HINT_AGAIN.search(text):
        return Reply(None, content)
    short = size(text) <= SHORT_WORDS
    if short and REPEAT.search(text):
        return Reply(Heard.repeat, "")
    if any(PROTEST.search(o) for o in _openings(text)) or (PROTEST.search(text) and size(content) < 6):
        return Reply(Heard.already_said, content)
    if short and MOVE_ON.search(text):
        return Reply(Heard.move_on, content if size(content) >= 6 else "")
    if short and WAIT.search(text) and size(content) < 3:
        return Reply(Heard.wait, "")
    if _asks_back(text, content, question):
        return Reply(Heard.clarify, "")
    if BARE_YES_NO.match(text):
        return Reply(Heard.terse, "")
    return Reply(None, content)


def _asks_back(text: str, content: str, question: Question | None) -> bool:
    """A clarifying question: a short question back without a reason of the candidate's own in it,
    or one the bank answers; or a longer one whose every sentence is a question, asking which
    reading is meant ("Before I answer: do you mean ..., or ...? And token-level or sequence-level?")."""
    asked = sentences(text)
    which = [s for s in asked if asks_which(s)]
    if size(text) <= ASK_BACK_MOST and which and all(s in which or _remark(s) for s in asked):
        # Each sentence asks which reading is meant, or says that the answer depends on it: however
        # much it names on the way ("你是说开源的训练框架，比如 verl、OpenRLHF 这种，还是各家实验室内部的系统？
        # 另外同步瓶颈是指 ...？" was judged, and praised; so was "What's the setting? Are we talking
        # about a single-GPU LoRA experiment, or a multi-node run on a large MoE model? The answer is
        # completely different.").
        return not TENTATIVE.search(text)
    if not QUESTION_END.search(text.strip()) or explains_much(content):
        return False
    if size(text) > ASK_BACK_WORDS:
        every_one_a_question = all(QUESTION_END.search(s) for s in sentences(text))
        return size(text) <= ASK_BACK_MOST and every_one_a_question and bool(CLARIFY.search(text))
    return bool(
        CLARIFY.search(text)
        or not (CAUSAL.search(text) or TENTATIVE.search(text))
        or (question is not None and clarification_for(question, text) is not None)
    )


def asks_which(sentence: str) -> bool:
    """A question asking which reading of the question is meant: not a claim, whatever it names."""
    return bool(QUESTION_END.search(sentence) and CLARIFY.search(sentence)) and not (
        TENTATIVE.search(sentence) or CAUSAL.search(sentence)
    )


def _remark(sentence: str) -> bool:
    """A sentence beside a question back that only says the answer depends on it."""
    return bool(DEPENDS.search(sentence)) and not QUESTION_END.search(sentence) and size(sentence) <= ASK_BACK_WORDS


LINKED = re.compile(r"^\s*(?:and|also|besides|plus|but|而且|并且|另外|还有|况且|再说)[\s,，]*", _I)


def _openings(text: str) -> list[str]:
    """The first clause of each sentence, past a linking word (where a protest sits: "这个提示就是把问题
    又说了一遍啊。而且数字我刚才已经说过了：..." went unanswered, the protest not being the reply's opening)."""
    return [re.split(r"[:：,，;；]", LINKED.sub("", s), maxsplit=1)[0] for s in sentences(text)]


def explains_much(content: str) -> bool:
    """More than a question back: two explaining sentences."""
    return sum(explains(s) for s in sentences(content)) >= 2


# --- what the candidate has said toward a target ---------------------------------------------


def _common(question: Question) -> frozenset[str]:
    """Words every answer to the question uses: the prompt's, and those most key points share."""
    return _common_words(
        question.prompt.en, question.prompt.zh, tuple(f"{kp.probe.en} {kp.probe.zh}" for kp in question.key_points)
    )


@lru_cache(maxsize=256)
def _common_words(prompt_en: str, prompt_zh: str, probes: tuple[str, ...]) -> frozenset[str]:
    counts: dict[str, int] = {}
    for probe in probes:
        for stem in stems(probe):
            counts[stem] = counts.get(stem, 0) + 1
    shared = {s for s, n in counts.items() if n >= max(3, len(probes) // 2)}
    return stems(f"{prompt_en} {prompt_zh}") | frozenset(shared)


def target_words(question: Question, point: KeyPoint, lang: str) -> frozenset[str]:
    """What a sentence must share with a key point's probe to be an answer to it, in one language."""
    probe = point.probe.zh if lang == "zh" else point.probe.en
    return stems(probe) - _common(question)


PROBE_SHARE = 0.4
PROBE_WORDS = 3


def said_toward(question: Question, point: KeyPoint, said: list[str]) -> str | None:
    """The sentence of the candidate's that already answers a key point's probe, by its words: at
    least three of the probe's own (not the question's) in one explaining sentence."""
    best, best_share = None, 0.0
    for sentence in said:
        lang = "zh" if len(CJK_CHAR.findall(sentence)) > len(WORD.findall(sentence)) else "en"
        words = target_words(question, point, lang)
        if len(words) < PROBE_WORDS or not explains(sentence):
            continue
        shared = len(words & stems(sentence))
        share = shared / len(words)
        if shared >= (PROBE_WORDS if lang == "en" else PROBE_WORDS + 1) and share >= PROBE_SHARE and share > best_share:
            best, best_share = sentence, share
    return best


NEAR_STRENGTH = 0.2
"""A near miss at least this strong counts as the candidate having said something toward the point."""


ASKING = (Heard.clarify, Heard.repeat, Heard.wait, Heard.move_on)
"""Replies that ask something of the interviewer and say nothing on the question."""


def said_on_question(turns: list[Turn]) -> list[str]:
    """Every sentence of content the candidate said on the question, in order."""
    return [s for t in turns if t.heard not in ASKING for s in sentences(strip_meta(t.answer))]


def partly_said(question: Question, assessment: Assessment, turns: list[Turn]) -> dict[str, str]:
    """Missing key points the candidate has already said something toward, with their words: a
    near miss of the judge, a cue named without the explanation, or an answer to the probe."""
    said = said_on_question(turns)
    near: dict[str, Evidence] = {}
    for t in turns:
        for e in t.assessment.near_misses if t.assessment else []:
            if (e.strength or 0) >= NEAR_STRENGTH and (
                e.key_point not in near or (e.strength or 0) > (near[e.key_point].strength or 0)
            ):
                near[e.key_point] = e
    out: dict[str, str] = {}
    for point_id in assessment.missed:
        point = question.key_point(point_id)
        if point_id in near:
            out[point_id] = near[point_id].quote
            continue
        mention = next((s for s in said if point.level > 1 and find_cue(normalise(s), point.cues.all())), None)
        toward = mention or said_toward(question, point, said)
        if toward:
            out[point_id] = toward
    return out


RECALLED = 0.5
"""An earlier sentence the judge reads as this likely the point the candidate says they made (short
of its bar) bears the protest out, as a reply to the point's own probe would (`ANSWERED_PROBE`)."""


def recall(
    question: Question, target: str, turns: list[Turn], read: Callable[[KeyPoint, str], float] | None = None
) -> Evidence | None:
    """On "I already said that": the earlier words that bear the target out, if any. A near miss of
    the judge; an earlier sentence `read` (the judge by meaning) takes for the target, now that the
    candidate points at it (a trial's "太小的话一组里经常全对或者全错，优势全是零" was read at 0.75 as the
    group-size point but recorded only as a near miss of another, and the protest was turned down);
    or a sentence that answers the target's probe. A cue named in passing is not enough, nor words
    that cannot show the point whatever they read like (a point that is its figures, recalled from a
    sentence without one, was credited to a trial's protest)."""
    if target not in {kp.id for kp in question.key_points}:
        return None
    point = question.key_point(target)
    near = [
        e
        for t in turns
        for e in (t.assessment.near_misses if t.assessment else [])
        if e.key_point == target
        and (e.strength or 0) >= NEAR_STRENGTH
        and not cannot_be_taken_for(question, point, e.quote)
    ]
    if near:
        best = max(near, key=lambda e: e.strength or 0)
        return best.model_copy(update={"how": "recalled", "level": point.level})
    said = [s for s in said_on_question(turns) if not cannot_be_taken_for(question, point, s)]
    if read is not None and said:
        strength, best_read = max((read(point, s), s) for s in said)
        if strength >= RECALLED:
            return Evidence(
                key_point=target, level=point.level, quote=best_read, how="recalled", strength=round(strength, 3)
            )
    sentence = said_toward(question, point, said)
    return Evidence(key_point=target, level=point.level, quote=sentence, how="recalled") if sentence else None


# --- clarifications ----------------------------------------------------------------------------

CLARIFY_WORDS = 2
ASKING_WORDS = frozenset(
    "还是 是说 你是 说的 是指 指的 的是 是不 不是 那种 这种 哪种 哪个 是哪 什么 里的 层面 面的 一下 具体 "
    "mean should assum want model train".split()
)
"""Stems of how a question back is asked, not of what it is about: "你是说 A 还是 B？" shares 是说 and 还是
with every "是说 C 还是 D？" entry. (The most frequent stems of the bank's clarifications, read off.)"""


def clarification_for(question: Question, text: str) -> Clarification | None:
    """The bank's answer to the question the candidate asked back, if one fits: it shares two words
    with the candidate's question beyond the prompt's own and the asking words, or most of a short one."""
    asked = stems(text)
    prompt = stems(f"{question.prompt.en} {question.prompt.zh}") | ASKING_WORDS

    def fit(entry: Clarification) -> tuple[int, int]:
        shared = asked & stems(f"{entry.asks.en} {entry.asks.zh}")
        return len(shared - prompt), len(shared)

    best = max(question.clarifications, key=fit, default=None)
    if best is None or not asked:
        return None
    distinct, shared = fit(best)
    return best if distinct >= CLARIFY_WORDS or (shared and shared / len(asked) >= 0.5) else None
