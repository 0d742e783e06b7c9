"""Reading a candidate's answer: sentences, cue matching, and the signals the scorer needs.

All of it works on English, Chinese and mixed text. Patterns are deliberately conservative:
a false "instruction to the grader" would throw away real content.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache

from common.terminal import clean_for_display

CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+(?:'[a-z]+)?")
# Sentence ends: Latin punctuation before a space (keeps 1e-6, 0.2, v3.2 intact), CJK punctuation,
# line breaks and bullet starts.
# Not after common abbreviations ("Dr. GRPO", "e.g. ", "vs. "), which would split a term in two.
SENTENCE_BREAK = re.compile(
    r"(?<!\bdr\.)(?<!\bvs\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bal\.)(?<=[.!?;])\s+"
    r"|(?<=[。！？；])|\n+\s*(?:[-*•]\s+|\d+[.)]\s+)?",
    re.IGNORECASE,
)

EXPLAIN = re.compile(
    r"\b(because|since|so that|so the|therefore|thus|hence|means|in order to|otherwise|prevent|reduc|"
    r"increas|keep|ensur|allow|caus|lead|result|make|let|avoid|instead|rather than|if|when|unless|whereas|"
    r"while|by using|by computing|which|that way|is|are|was|were|uses|computes|takes|gives|subtract|divid|"
    r"estimat|measur|stor|split|shard|gather|send|updat|replac|clip|bound|limit|depend|requir|need|work|"
    r"become|stay|drop|remov|add|multipl|weight|scale|sampl|compar|match|differ|trade|equal|minus|plus)\w*|[=→]|->|"
    r"因为|所以|使得|导致|如果|否则|防止|降低|减少|增加|保证|从而|避免|以便|由于|因此|意味着|相当于|而不是|"
    r"就会|会让|让|使|通过|等于|是|用|算|取|减|除|估计|存|切|把|对|做|来|能|会|需要|需|要|可以|需要|依赖|"
    r"变|保持|限制|约束|比较|区别|不同|加|乘"
)
PLAIN_VERB = re.compile(
    r"\b(?:\w+(?:'s|'re|'ll|'ve|'d|n't)|can|could|will|would|should|must|may|might|do|does|did|has|have|had|"
    r"gets?|got|goes|went|costs|runs|ran|pays|paid|wins|won|loses|lost|beats|beat|hits|hit|grows|grew|shows|"
    r"took|came|made|kept|held|left|found|gave|said|saw|knew|fell|rose|broke|brought|built|caught|chose|threw|"
    r"wrote|spent|stuck|[a-z]{3,}ed)\b"
)
"""Everyday verbs a plain-words answer makes its claim with ("training costs you once", "it's one
version behind", "the score jumped"): a sentence with one says something, even without a connective
from `EXPLAIN`."""
LIST_SPLIT = re.compile(r"[,，、;；\n•]+|\s*(?:→|->|=>|⇒)\s*|\s+[/|]\s+|(?<=\w):\s")


@lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", clean_for_display(text)).lower()
    text = re.sub(r"\s+\(", "(", text)
    return re.sub(r"[ \t]+", " ", text)


def size(text: str) -> float:
    """A length comparable across scripts: Latin words plus CJK characters / 2."""
    return len(WORD.findall(text)) + len(CJK_CHAR.findall(text)) / 2


SOFT_WRAP_LINE = 40
"""A line at least this long that ends without punctuation and is followed by a single line break
was wrapped, not ended (text pasted from an editor or a notes file): the sentence goes on."""


def _soft_wrap(text: str, match: re.Match[str]) -> bool:
    gap = match.group()
    if gap.count("\n") != 1 or gap.strip():  # a blank line or a bullet ends the sentence
        return False
    line = text[: match.start()].rsplit("\n", 1)[-1].rstrip()
    return len(line) >= SOFT_WRAP_LINE and line[-1] not in ".!?;:。！？；：" and match.end() < len(text)


def sentences(text: str) -> list[str]:
    """The answer's sentences, each an exact substring of the answer (evidence must be quotable)."""
    out: list[str] = []
    start = 0
    for match in SENTENCE_BREAK.finditer(text):
        if _soft_wrap(text, match):
            continue
        piece = text[start : match.start()].strip()
        if piece:
            out.append(piece)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def one_per_line(kept: list[str]) -> str:
    """Sentences joined so that `sentences` gives them back: each on a line of its own (its wrapped
    lines joined by spaces) with a blank line between, which always ends a sentence."""
    return "\n\n".join(" ".join(s.split()) for s in kept)


FORMULA_SPACE = re.compile(r"\s*([(),|+=*/^<>]|\s-\s)\s*")
KL_NAME = re.compile(r"(?<![a-z])d_?\{?kl\}?(?![a-z])")
NUMBER_WORD = re.compile(r"\b(plus|minus) one\b|\bone (plus|minus)\b")


def formula_form(normalised: str) -> str:
    """Text as cue phrases are matched: a formula written with or without spaces, `D_KL` or `KL`,
    `·` or `*`, "minus one" or "minus 1" reads the same ("H(p, q) = H(p) + D_KL(p || q)" has the cue
    "h(p,q)"). Applied to cues and sentences alike."""
    # A middle dot is a product sign ("β·log π"), read as "*".
    text = normalised.replace("\u2212", "-").replace("\u00b7", "*").replace("\u22c5", "*")
    text = FORMULA_SPACE.sub(lambda m: m.group(1).strip() or "-", text)
    text = KL_NAME.sub("kl", text)
    return NUMBER_WORD.sub(lambda m: f"{m.group(1)} 1" if m.group(1) else f"1 {m.group(2)}", text)


CODE_SWITCH_GAP = r"\s*(?:[a-z][a-z0-9-]*\s+)?"


@lru_cache(maxsize=4096)
def cue_pattern(cue: str) -> re.Pattern[str]:
    """Case-insensitive cue matching: word boundaries on Latin edges, a short suffix allowed for
    longer words (baseline -> baselines, clip -> clipping), plain substring for CJK."""
    cue = formula_form(normalise(cue).strip())
    words = cue.split(" ")
    body = re.escape(words[0])
    for left, right in itertools.pairwise(words):
        # Code-switched Chinese slips an English qualifier in after its Chinese words: the cue
        # "不存在 hack" is in "不存在 reward hacking" (a fluent bluff's "there is no reward hacking").
        switched = bool(CJK_CHAR.match(left[-1:])) and right[:1].isascii() and right[:1].isalpha()
        body += (CODE_SWITCH_GAP if switched else r"\s*") + re.escape(right)
    if len(cue) >= 4 and all(CJK_CHAR.match(ch) for ch in cue):
        # Chinese slips adverbs into a phrase (不再奖励 / 不再继续奖励): allow a short gap mid-cue.
        body = re.escape(cue[:2]) + r"[\u3400-\u9fff]{0,3}?" + re.escape(cue[2:])
    head = r"(?<![a-z0-9])" if cue[:1].isascii() and cue[:1].isalnum() else ""
    tail = ""
    if cue[-1:].isascii() and cue[-1:].isalnum():
        # A number ends where its digits do: the cue "β=0" is not in "β=0.4" (it is in "β=0.0").
        tail = r"[a-z]{0,4}(?![a-z0-9])" if len(cue) > 3 and cue[-1].isalpha() else r"(?![a-z0-9]|\.0*[1-9])"
    return re.compile(head + body + tail)


@cache
def cue_anchor(cue: str) -> str:
    """Text every match of `cue_pattern(cue)` contains (keep the two in step): the cue's first word,
    normalised, or only its first two characters when it is Chinese, where a gap may follow them.
    Testing for it first skips compiling and running the patterns of cues a sentence cannot match:
    a bank has about 7,000 cues, and compiling a question's 240 took about 60 ms of a first answer."""
    first = formula_form(normalise(cue).strip()).split(" ")[0]
    return first[:2] if CJK_CHAR.match(first[:1]) else first


def find_cue(sentence_normalised: str, cues: list[str]) -> str | None:
    sentence_normalised = formula_form(sentence_normalised)
    for cue in cues:
        if cue.strip() and cue_anchor(cue) in sentence_normalised and cue_pattern(cue).search(sentence_normalised):
            return cue
    return None


CLAUSE_BREAKS = (",", "，", ";", "；", ":", "：", " but ", " however ", "不过", "但是", "但")


def asserts(sentence: str, cues: list[str]) -> bool:
    """The sentence makes the claim a cue names, rather than denying it: a negation inside the
    cue itself ("doesn't matter") is part of the claim; one elsewhere in the sentence denies it."""
    normalised = formula_form(normalise(sentence))
    for cue in cues:
        match = cue_pattern(cue).search(normalised) if cue.strip() and cue_anchor(cue) in normalised else None
        if not match:
            continue
        # Only the clause around the claim can deny it: "这个不是问题，所以多大都无所谓" still asserts it.
        start = max((normalised.rfind(p, 0, match.start()) for p in CLAUSE_BREAKS), default=-1) + 1
        ends = [i for i in (normalised.find(p, match.end()) for p in CLAUSE_BREAKS) if i >= 0]
        clause = normalised[start : match.start()] + " " + normalised[match.end() : min(ends, default=len(normalised))]
        if not NEGATION.search(clause):
            return True
    return False


def explains(sentence: str) -> bool:
    """A sentence that says how or why, not just a term: long enough, with a connective or verb,
    and not itself a list of terms (technical nouns like "split-K" or "clip" look like verbs)."""
    return _says(sentence, EXPLAIN)


def states(sentence: str) -> bool:
    """`explains`, or a claim made with an everyday verb (`PLAIN_VERB`): enough for the judge by
    meaning, whose head has read what the sentence says; a cue phrase alone still needs `explains`
    (README: how the judge works)."""
    return _says(sentence, EXPLAIN, PLAIN_VERB)


FIGURE = re.compile(
    r"(?<![a-z\-_.0-9])[0-9０-９]|\d(?:\.\d+)?[bmk](?![a-z])|[=≈≤≥∝^√]|\b(?:sqrt|exp|log)\s*\(|"
    r"\b(?:zero|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|billions?|dozens?|"
    r"half|twice|double|doubles|triple|tenth|quarter|third|percent|single-digit|quadratic(?:ally)?|"
    r"linear(?:ly)?)\b|\border of magnitude|\btens of\b|\ba few\b|\bfraction of\b|\bmost of the\b|\bone[- ]step\b|\b(?:under|within) a second\b|"
    r"[二两三四五六七八九十百千万亿]个|[一二两三四五六七八九十百千万亿半几][^\s，。；,.;]{0,2}?"
    r"(?:倍|成|步|次|层|张|卡|块|秒|毫秒|小时|天|轮|位|字节|%|％)|几[十百千万个]|分之|大部分|大多数|翻倍|减半|一半|百万|数量级|个位数|零点"
)
"""A number, spelled or written, or a formula: what a point that *is* its figures needs. Digits
inside a name (Qwen3, H800, k3, Llama-3) are not figures."""


def gives_figure(sentence: str) -> bool:
    """Does the sentence give a figure or a formula? "Thinking Machines wrote a blog post about it"
    names where the figures are and gives none."""
    return bool(FIGURE.search(sentence.lower()))


_NUMBER = (
    r"(\d+(?:,\d{3})*(?:\.\d+)?(?:e-?\d+)?)(?:\s*(?:-|–|~|to|到|至)\s*(\d+(?:,\d{3})*(?:\.\d+)?))?"
    r"\s*(thousand|million|billion|trillion|[kmbt千万亿%％x×倍])?(?![a-z])"
)
WRITTEN_NUMBER = re.compile(r"(?<![a-z\-_.0-9])" + _NUMBER)
"""A number as a candidate writes it, with its range and multiplier; not inside a name (Qwen3, H800)."""
NAMED_NUMBER = re.compile(r"(\d+(?:\.\d+)?)()([kmbt])?(?![a-z])")
"""Each number of a reference text inside names too, alone (its "Qwen2.5-32B" backs "a 32B model";
"Qwen3-235B" is no range)."""
SCALE = {"thousand": 1e3, "k": 1e3, "千": 1e3, "万": 1e4, "million": 1e6, "m": 1e6, "亿": 1e8}
SCALE |= {"billion": 1e9, "b": 1e9, "trillion": 1e12, "t": 1e12}
PERCENT = 0.01
FIGURE_SLACK = 1.3
"""A figure agrees with a reference within this factor: "about 2.5x" for "2.35-2.67x", "2k steps"
for "over 2,000"."""
DIGITS_SLACK = 1.05
"""... or, written without a multiplier, by its digits alone within this one: "54.8 on logic puzzles"
for "+54.8%" (a 70B model is not 67.6 points)."""


def _numbers(pattern: re.Pattern[str], text: str) -> list[tuple[float, float, float]]:
    """(low, high, scale) of each number in the text; a year is not a figure."""
    out = []
    for match in pattern.finditer(text.lower()):
        low = float(match.group(1).replace(",", ""))
        high = float(match.group(2).replace(",", "")) if match.group(2) else low
        if not match.group(2) and not match.group(3) and re.fullmatch(r"(?:19|20)\d\d", match.group(1)):
            continue
        out.append((low, high, PERCENT if match.group(3) in ("%", "％") else SCALE.get(match.group(3) or "", 1.0)))
    return out


def _percentages(text: str) -> list[tuple[float, float]]:
    return [(low, high) for low, high, scale in _numbers(WRITTEN_NUMBER, text) if scale == PERCENT]


FACTOR = re.compile(r"(?<![a-z\-_.0-9])(\d+(?:,\d{3})*(?:\.\d+)?)\s*(?:x|×|倍|times)(?![a-z])")
"""A figure written as a factor ("by 128x", "放大 4096 倍"): what a claim of scale comes to."""


def factors_contradict(references: list[str], sentence: str) -> bool:
    """Where the references give a factor, does the sentence give one that none of their figures
    backs? "Two SUM reductions over 64 ranks inflate the value by 128x" against 4096x: the 64 ranks
    agree, the result does not."""
    if not any(FACTOR.search(text.lower()) for text in references):
        return False
    return any(figures_contradict(references, match.group(1)) for match in FACTOR.finditer(sentence.lower()))


EN_COUNTS = {"single": 1, "only one": 1, "just one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
ZH_COUNTS = {"单": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5}
EN_COUNTED = re.compile(r"\b(single|only one|just one|two|three|four|five)\s+([a-z][a-z0-9-]*[a-z0-9])")
ZH_COUNTED = re.compile(
    r"((?:只|仅)[\u4e00-\u9fff]{0,2}?一|单|两|二|三|四|五)\s*(?:次|个|种|份|轮)\s*([a-z][a-z0-9-]*[a-z0-9]|[\u4e00-\u9fff]{2})"
)
"""A count of one only where it is stressed ("a single", "only one", "只做一次"): "one all-to-all for
dispatch and one for combine" counts two."""


def _counted(text: str) -> dict[str, set[int]]:
    """Things counted in words ("two all-to-all exchanges", "两次 all-to-all"), by the thing (its
    first word, singular)."""
    found: dict[str, set[int]] = {}
    text = text.lower()
    for pattern, counts in ((EN_COUNTED, EN_COUNTS), (ZH_COUNTED, ZH_COUNTS)):
        for count, thing in pattern.findall(text):
            number = 1 if count[:1] in "只仅" else counts[count]
            found.setdefault(re.sub(r"(?<=[a-z0-9])e?s$", "", thing), set()).add(number)
    return found


def counts_contradict(references: list[str], sentence: str) -> bool:
    """Do the references count something as two or more ("two all-to-all exchanges per MoE layer")
    and the sentence count the same thing otherwise ("a single all-to-all per MoE layer", a trial's
    wrong number that had been the evidence for the right one)?"""
    known: dict[str, set[int]] = {}
    for text in references:
        for thing, counts in _counted(text).items():
            known.setdefault(thing, set()).update(counts)
    said = _counted(sentence)
    return any(thing in said and max(counts) >= 2 and not (said[thing] & counts) for thing, counts in known.items())


def figures_contradict(references: list[str], sentence: str) -> bool:
    """Does the sentence give written figures of which none agrees with any in the references (the
    point's statement)? "ProRL trained a 70B model" gives a figure, the wrong one. Spelled numbers
    are not read. A model's size beside other figures sets the scene and agrees with nothing: "8
    bytes per parameter, so a 7B policy needs ~56 GB" (blind trial 32) is wrong whatever size the
    example takes."""
    given = _numbers(WRITTEN_NUMBER, sentence)
    given = [n for n in given if n[2] != SCALE["b"]] or given
    if not given:
        return False
    known = [n for text in references for pattern in (WRITTEN_NUMBER, NAMED_NUMBER) for n in _numbers(pattern, text)]
    # "60% overhead" is also "1.6x": a percentage of the references agrees as the factor it makes.
    known += [(1 + low / 100, 1 + high / 100, 1.0) for text in references for low, high in _percentages(text)]

    def near(value: float, low: float, high: float, slack: float = FIGURE_SLACK) -> bool:
        return low / slack <= value <= high * slack

    return not any(
        (scale == 1.0 and near(value, k_low, k_high, DIGITS_SLACK))
        or near(value * scale, k_low * k_scale, k_high * k_scale)
        for low, high, scale in given
        for value in (low, high)
        for k_low, k_high, k_scale in known
    )


def _says(sentence: str, *verbs: re.Pattern[str]) -> bool:
    text = sentence.lower()
    said = any(v.search(text) for v in verbs)
    return size(sentence) >= 6 and said and not list_shape(sentence, 3).is_list


# --- signals --------------------------------------------------------------------------------

GRADER_INSTRUCTION = re.compile(
    r"ignore (all |any |the )?(previous|prior|above|earlier|preceding|your) (instructions|prompts?|rules|guidelines)|"
    r"disregard (all |any |the )?(previous|prior|above|your)|"
    # "the" only with a word for the answer: "gives the highest probability to the data" is content
    r"\b(give|award|assign|rate|score|mark|grade)s? (this|me|my|it|the (answer|candidate|response))\b.{0,30}"
    r"\b(4|four|full|max|maximum|top|perfect|highest|10|100)\b|"
    r"\b(4|four|full|max|maximum|top|perfect|highest)\s*(/\s*4\s*)?(points|marks|score|depth)\b.{0,20}\b(please|for this|for me)|"
    r"\b(you are|you're|act as|pretend to be) (now )?(a |an |the )?(lenient |generous )?(grader|evaluator|judge|scorer)|"
    r"\b(note|message|instruction)s? (to|for) (the |any )?(automated |ai )?(grader|evaluator|scorer|judge|ai|model|llm|assessor|(grading|scoring) (system|model))|"
    r"\bdear (grader|evaluator|scorer|assessor)|"
    r"(^|[(\[【（]|<!--)\s*(hey |hi |hello |dear )?(automated )?(grader|evaluator|scorer|assessor|judge)\s*[,:]|"
    r"\bset (all |every )(the )?(scores?|grades?|marks?|depths?)\b.{0,15}\b(max|maximum|full|top|highest|4|four)\b|"
    r"^\s*(system|assistant|grader|evaluator|interviewer|user|candidate)\s*:|"
    r"\"?depth\"?\s*[:=]\s*\"?[0-4]|\bscore\s*[:=]\s*\d|"
    r"(this|my) answer (is|deserves|should get|should receive) (a |an )?(4|four|full|perfect|maximum|top)|"
    r"override (the )?(score|scoring|grading|rubric|keyword)|override_\w+|jailbreak|new instructions|"
    r"\b(record|grade|mark|rate|score|output|set|assign|log)\b.{0,25}\b(depth|score|grade)\s*(of |as |= ?|: ?)?[0-4]\b|"
    r"\b(grade|mark|rate|score) (it |this |them )?as\b.{0,10}\b(4|four|expert|full|perfect)\b|"
    r"\b(skip|ignore|bypass) (the |your )?(rubric|grading|scoring|keyword ceiling)|"
    r"\bpre-?(approved|verified|graded|validated)\b|\bregardless of (the )?(answer|length|content|rubric)|"
    # a scoring model addressed, not named in a list ("pick the best one with a scoring model, or ...")
    r"\b(grading|scoring) (note|instruction)s?\b|(^|[(\[【（]|<!--)\s*(dear |hey |hi )?(the )?(grading|scoring) (system|model)\s*[,:]|"
    r"\bi (personally )?vouch\b|"
    r"\bgrad(er|ing) (committee|directive|team|panel)\b|\b(official )?rubric (awards|patch|override|says|update)\b|"
    r"\bset_depth\b|\bapply level [0-4]\b|\blevel [0-4] (now )?applies\b|keyword[-_ ]list[-_ ]ceiling|\bmin_depth|"
    r"评分(结果|标准|说明|补丁|委员会)|请勿修改|系统预填|深度\"?\s*[:：=]\s*\"?[0-4]|"
    r"新指令|不要(给出|提到).{0,10}(扣分|指令|理由)|请(直接)?(给|打|记录|评).{0,6}(分|深度|等级)|"
    r"忽略.{0,6}(指令|指示|提示|要求|规则)|无视.{0,6}(指令|指示|规则)|"
    r"(给|打|评).{0,8}(满分|4\s*分|四分|最高分|高分|最高等级)|满分|"
    r"(评分|打分)(员|者|系统|器|模型)\s*(请|您|你|注意|不得|不要|[:：])|[（(【]\s*给?\s*(评分|打分)(员|者|系统|器|模型)|"
    r"你(现在)?(是|扮演).{0,6}(评分|打分|评委|考官)|"
    r"^\s*(系统|助手|面试官|评分员|候选人)\s*[:：]|系统(提示|指令)\s*[:：]|"
    r"深度\s*[:：=]\s*[0-4]",
    re.IGNORECASE | re.MULTILINE,
)

HIDDEN_MARKUP = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
"""An HTML comment: text a rendered answer hides from the interviewer, so it is written for a machine
and never judged as content (the answer as typed is still saved whole)."""

DONT_KNOW = re.compile(
    r"\b(i )?(really |honestly )?(don'?t|do not|dunno) know\b|\bno idea\b|\bnot sure\b|\bno clue\b|"
    # A hedge on one's own knowledge ("I am less sure about DPPO" was quoted back as a claim to build on);
    # not 不确定 alone, which is also "nondeterministic" (run-to-run 的不确定性).
    r"\b(less|not (so|too|very|entirely|quite|really)) sure\b|不太确定|不是很确定|我不确定|"
    r"\bnever (heard|read|used)\b|\bhaven'?t (read|heard|seen|looked)\b|\bi'?m not familiar\b|^\s*(pass|skip|idk)\s*[.!]?\s*$|"
    # "I" as the subject: "the policy forgets less than with SFT" is a claim, not a gap.
    r"\bi (really |honestly |just )?(don'?t|do not|can'?t|cannot) (remember|recall)\b|\bi('ve| have)? (forgot|forgotten)\b|"
    r"不知道|不清楚|不太清楚|不太懂|我(也|真|还|完全)?不会|不会(做|答|回答)|没(有)?(了解|读|看|学|用)过|不了解|忘了|想不起来|不懂|没概念|"
    r"记不清|记不得|不记得|(?:不太|不是很|不)熟(?:悉)?",
    re.IGNORECASE,
)


def admits_a_gap(text: str) -> bool:
    """Does the reply say the candidate does not know some or all of what was asked?"""
    return any(DONT_KNOW.search(s) for s in sentences(text))


HINT_REQUEST = re.compile(
    r"\b(give|can i (get|have)|could you give|need) (me )?(a |some )?(hint|clue|pointer)\b|^\s*hint\??\s*$|"
    r"给(我)?(个|一个|一点|点)?提示|提示一下|能不能提示|有没有(什么)?提示",
    re.IGNORECASE,
)

NEGATION = re.compile(
    r"\b(not|n't|never|no longer|isn't|aren't|doesn't|don't|rather than|instead of|wrong|myth|"
    r"misconception|contrary|false|mistake|incorrect)\b|不是|不会|并不|并非|而不是|不取|错误|误解|没有|不对|不需要|不必",
    re.IGNORECASE,
)

LOREM = frozenset(
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed eiusmod tempor incididunt labore dolore magna aliqua".split()
)
KEYBOARD = re.compile(r"asdf|qwer|zxcv|hjkl|uiop|sdfg|dfgh|fghj|ghjk|wert|erty|rtyu|tyui|yuio|xcvb|cvbn|vbnm")


def _wordlike(token: str) -> bool:
    t = token.lower()
    return (
        t not in LOREM
        and not KEYBOARD.search(t)
        and bool(re.search(r"[aeiouyäöü]", t))
        and not re.search(r"[bcdfghjklmnpqrstvwxz]{5,}", t)
        and not re.search(r"(.)\1{2,}", t)
        and len(t) <= 24
    )


def is_gibberish(text: str) -> bool:
    visible = [ch for ch in text if not ch.isspace()]
    if not visible:
        return False
    letters = sum(1 for ch in visible if ch.isalpha())
    if letters / len(visible) < 0.4:
        return True
    if CJK_CHAR.search(text) and len(CJK_CHAR.findall(text)) >= 0.3 * letters:
        return False
    tokens = [t for t in WORD.findall(text) if len(t) > 3]  # kl, p, q, ppo: no evidence either way
    if len(tokens) < 2:
        return bool(tokens) and not _wordlike(tokens[0]) and len(WORD.findall(text)) <= 2
    return sum(_wordlike(t) for t in tokens) / len(tokens) < 0.6


@dataclass(frozen=True)
class ListShape:
    segments: int
    short_segments: int
    minimum: int = 4

    @property
    def is_list(self) -> bool:
        return self.segments >= self.minimum and self.short_segments >= 0.75 * self.segments


def list_shape(text: str, minimum: int = 4) -> ListShape:
    """How much of the text is short terms between separators (a keyword list) rather than prose."""
    segments = [s.strip(" .。-*") for s in LIST_SPLIT.split(text) if s.strip(" .。-*")]
    short = sum(1 for s in segments if size(s) <= 4)
    return ListShape(len(segments), short, minimum)


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary (never inside a Latin word), with "…"."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if not CJK_CHAR.search(head[-1:]):
        space = max(head.rfind(" "), max((head.rfind(p) for p in "，。；、"), default=-1) + 1)
        if space > limit // 2:
            head = head[:space]
    opened = _unclosed_bracket(head)
    if opened > limit // 2:  # "... (that's the…" reads as cut mid-aside: end before the aside
        head = head[:opened]
    return head.rstrip(" ,;:，；：、") + "…"


def markdown_literal(text: str) -> str:
    """Plain text to put inside Markdown as it is, its asterisks escaped: a bank statement's "pi*"
    would otherwise close the bold around it and leave a stray "*" (underscores inside words, as in
    "pi_ref", are no emphasis in CommonMark)."""
    return text.replace("*", "\\*")


LONE_STAR = re.compile(r"(?<![*\\])\*(?!\*)")


def formula_stars(markdown: str) -> str:
    """Markdown of ours (a model answer, a follow-up) with its lone asterisks escaped, so a formula's
    "gamma*V" or "r_t*A_t" is not read as emphasis ("gammaV", "r_tA_t" in a user trial); its bold
    (**) stays bold."""
    return LONE_STAR.sub(r"\\*", markdown)


def _unclosed_bracket(text: str) -> int:
    """Where the last bracket still open at the end of `text` starts (-1: none)."""
    opened: list[int] = []
    for i, ch in enumerate(text):
        if ch in "([{（":
            opened.append(i)
        elif ch in ")]}）" and opened:
            opened.pop()
    return opened[-1] if opened else -1


# --- word stems: what two texts share ----------------------------------------------------------

STOP = frozenset(
    "a an and are as at be been but by can could did do does doing done each else for from had has have how i if in "
    "into is it its just like may might more most much must no not of on one only or other our out over so some "
    "such than that the their them then there these they this those to too up us use used using very was we were what "
    "when where whether which while who why will with would you your yes also about any all between both exactly "
    "concretely really actually happen happens give gives make makes way ways".split()
)
ENGLISH = re.compile(r"[a-z][a-z0-9_'-]*")
SUFFIX = re.compile(r"(?:ing|ed|es|s|e|ly)$")


@lru_cache(maxsize=8192)
def stems(text: str) -> frozenset[str]:
    """Word stems (British and American spellings alike) and Chinese character pairs."""
    out: set[str] = set()
    lowered = normalise(text)
    for word in ENGLISH.findall(lowered):
        if word in STOP or len(word) < 3:
            continue
        word = word.replace("iz", "is").replace("yz", "ys")
        out.add(SUFFIX.sub("", word) if len(word) > 4 else word)
    for run in re.findall(r"[\u3400-\u9fff]+", lowered):
        out.update(run[i : i + 2] for i in range(max(len(run) - 1, 1)))
    return frozenset(out)
