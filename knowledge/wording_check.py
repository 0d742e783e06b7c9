"""Does each wording of a question keep all of its parts? A lexical check for `bank validate`.

A part is kept by a wording when the wording, in the same language, says one of the part's words:
a content word of the part's label (an English word in any inflection: remove/removing), a word of
the part's id, a cue phrase of a key point that answers the part, or a word of the same kind of ask
(a part that asks why is kept by "why", "reasoning", "理由"; one that asks for remedies by "deal
with", "mitigate", "应对"). It catches a wording that drops a part; it cannot prove that a kept
word is asked about, so wordings are still written and reviewed by people.
"""

from __future__ import annotations

import re
from functools import cache

from knowledge.models import Bilingual, Question

WORD = re.compile(r"[a-z0-9]+")
HAN = re.compile(r"[\u4e00-\u9fff]+")
EN_FILLER = frozenset(
    "a about all an and any are as at be being by can could do does done for from how if in into is it its "
    "of on or other really should than that the their them then there these they this those to use used "
    "using what when where whether which who why will with without would you your".split()
)
ZH_FILLER = (
    "为什么",
    "什么",
    "如何",
    "怎么",
    "怎样",
    "哪些",
    "哪里",
    "是否",
    "真的",
    "其他",
    "一个",
    "这个",
    "之间",
    "这么",
    "可以",
    "有何",
    "区别",
    "不同",
)
ASKS = [
    # each: words that mark a kind of ask; a part whose label has one is kept by any of them
    ("why reason reasons reasoning justify rationale pick choose", "为什么 为何 理由 原因 依据 凭什么 选哪个 挑"),
    (
        "mitigate mitigation remedy remedies fix deal do_about avoid reduce prevent address solve",
        "缓解 应对 处理 解决 办法 手段 避免 减少 修复",
    ),
    ("evidence support supports show proof", "证据 依据 支撑 表明 证明"),
    ("applications application applied apply used practice settings", "应用 用在 场景 实际 实践"),
    ("remove removed removing without drop dropped", "去掉 拿掉 去除 不用 没有 不做"),
    ("break breaks broken fail fails failure", "破坏 失效 打破 出问题 不成立"),
    ("size", "大小 规模"),
]


def _stems(text: str) -> set[str]:
    return {w[:5] if len(w) > 5 else w for w in WORD.findall(text.lower()) if w not in EN_FILLER and len(w) > 1}


def _han_words(text: str) -> set[str]:
    """Chinese words of a label: every two-character piece of each run of Han characters, minus filler."""
    words: set[str] = set()
    for run in HAN.findall(text):
        for filler in ZH_FILLER:
            run = run.replace(filler, " ")
        for piece in run.split():
            words |= {piece[i : i + 2] for i in range(len(piece) - 1)}
    return words


@cache
def _asks() -> list[tuple[frozenset[str], frozenset[str]]]:
    return [(frozenset(w.replace("_", " ") for w in en.split()), frozenset(zh.split())) for en, zh in ASKS]


def _ask_words(label: str) -> tuple[set[str], set[str]]:
    """The English and Chinese words of every kind of ask the label (or the part's id) makes."""
    stems = _stems(label)
    en_words: set[str] = set()
    zh_words: set[str] = set()
    for en, zh in _asks():
        if {w[:5] for w in en} & stems or any(word in label for word in zh):
            en_words |= en
            zh_words |= zh
    return en_words, zh_words


def _says(text: str, words: set[str]) -> bool:
    """Whether `text` says one of `words` (English words in any inflection, phrases and Chinese as written)."""
    stems = _stems(text)
    return any(word in text if " " in word or HAN.search(word) else word[:5] in stems for word in words)


def keeps_part(question: Question, part_id: str, wording: Bilingual, lang: str) -> bool:
    part = question.part(part_id)
    label, text = part.get(lang), wording.get(lang).lower()
    cues = [cue.lower() for kp in question.points_of(part_id) for cue in getattr(kp.cues, lang)]
    if any(cue in text for cue in cues):
        return True
    en_asks, zh_asks = _ask_words(f"{label} {part.en} {part_id.replace('-', ' ')}")
    wanted = _stems(label) | _stems(part_id.replace("-", " ")) | en_asks
    if lang == "zh":
        wanted |= _han_words(label) | zh_asks
    return _says(text, wanted)


def dropped_parts(question: Question) -> list[tuple[int, str, str]]:
    """(wording number, language, part id) for every part a wording does not keep."""
    return [
        (index, lang, part.id)
        for index, wording in enumerate(question.wordings, 1)
        for lang in ("en", "zh")
        for part in question.parts
        if not keeps_part(question, part.id, wording, lang)
    ]
