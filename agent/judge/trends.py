"""Which way a quantity moves its effect (`trends` in knowledge/facts.yaml): "a larger β keeps the
policy nearer the reference". A fluent wrong answer keeps every term and turns the direction round
("β 越大，KL 约束越弱"), and e5 reads the two as one claim. This reader finds where a sentence says
the quantity goes up or down, and where it says what that does (a phrase of the trend's, or one of
its measures with a direction word: "higher variance", 方差更小), pairs each effect with the nearest
move of the quantity, and reports the trends a sentence states the wrong way round.

Precision comes first: a question, a piece of a claim that negates, and a move whose effect is
said both ways are left alone, and a contrast ("while", 而, 反之) starts a new stretch, so "a larger
β keeps it close, while a smaller one lets it drift" states two right claims, not a muddle. The
figures (`rl-interview eval --trends`, blind sentences): README, how the judge works."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from agent.text import CJK_CHAR, NEGATION, normalise
from knowledge.facts import Trend, load_facts, trend_id

CLAIM = re.compile(r"[^;；。!?！？:：\n]+[;；。!?！？:：\n]?")
"""A claim ends at a colon too: what follows one explains, and pairs with its own moves ("I'd keep
the temperature very low, close to greedy: high temperature injects random tokens")."""
CONTRAST = re.compile(
    r"\b(?:whereas|while|but|however|otherwise|conversely|on the other hand|in contrast|unlike)\b|"
    r"(?<![反因从进])而(?!且)|但|不过|反之|相反|反过来|否则|相比之下"
)
"""A contrast word (而 as "whereas", not in 反而 "instead" or 而且 "and"). Not a reason ("because",
因为): it mostly restates the effect ("evaluate at large k, since that's where RL wins by most")."""
DENIED = re.compile(
    r"\bmisread(?:ing)?\b|\bnot true\b|\b(?:can't|cannot|won't|wouldn't|couldn't)\b|误读|不成立|无法|不能"
)
"""Beside the common negations (`NEGATION`): a piece that calls a reading wrong, or says what cannot
be, claims nothing."""
ASKED = re.compile(r"[?？]\s*$|吗|\bwhether\b")
BREAK = re.compile(r"[,，:：、(（)）]")
"""A direction word is not said of a name across a comma ("as λ increases, variance ..." : the
increase is λ's)."""
RISES = tuple(
    (
        "larger|bigger|higher|greater|large|big|high|more|stronger|longer|wider|increase|increases|"
        "increased|increasing|raise|raises|raised|raising|boost|boosts|boosting|crank up|cranks up|"
        "cranking up|turn up|turns up|turning up|bump up|bumping up|push up|grow|grows|growing|goes up|"
        "go up|rise|rises|rising|closer to 1|close to 1|widen|widens|widened|widening|toward 1|towards 1|"
        "largest|highest|biggest|most|lengthen|lengthens|越大|更大|最大|最高|很大|很高|一大|一多|越长|更长|放宽|"
        "大一点|大一些|变大|增大|调大|加大|提高|调高|拉高|升高|增加|提升|上升|越高|更高|较大|越强|更强|变强|越多|更多|变多|拉大|放大|越明显|更明显|接近 1|趋近 1|"
        "趋于 1"
    ).split("|")
)
"""Common words for more of something, said next to one of its names ("larger β", 方差越大)."""
FALLS = tuple(
    (
        "smaller|lower|less|fewer|small|low|weaker|shorter|narrower|decrease|decreases|decreased|"
        "decreasing|reduce|reduces|reduced|reducing|lowers|lowering|shrink|shrinks|shrinking|cut|cuts|"
        "cutting|turn down|turns down|turning down|dial down|dialing down|dialling down|goes down|"
        "go down|drop|drops|dropping|closer to 0|close to 0|narrow|narrows|narrowed|narrowing|toward 0|"
        "towards 0|smallest|lowest|least|shorten|shortens|越小|更小|最小|最低|很小|很低|越短|更短|收紧|小一点|"
        "小一些|变小|减小|调小|降低|调低|拉低|减少|下降|越低|更低|较小|越弱|更弱|变弱|越少|更少|变少|缩小|接近 0|趋近 0|趋于 0"
    ).split("|")
)
INTRANSITIVE = frozenset(
    (
        "drop|dropping|drops|go down|go up|goes down|goes up|grow|growing|grows|rise|rises|rising|shrink|"
        "shrinking|shrinks"
    ).split("|")
)
"""English direction words said of the name before them ("the variance grows"); the others go with
the name after them when there is one ("increases the variance", "larger β")."""
CJK_VERBS = frozenset(
    ("减小|减少|加大|升高|增加|增大|拉低|拉大|拉高|提升|提高|放大|缩小|调低|调大|调小|调高|降低").split("|")
)
"""Chinese verbs that take an object after them (降低方差) or a subject before them (ε 降低之后): the
nearer name; the other Chinese direction words follow their name (β 越大)."""
BEFORE = 14
"""How far before a name its direction word may end ("the larger the KL coefficient")."""
AFTER = 10
"""How far after a name it may start ("β 调得越大", "λ goes up")."""
REACH = 60
"""How far from a move of the quantity its effect may be said: "keep the temperature very low, close
to greedy: ..., high temperature injects random tokens" does not pair the greedy with the high."""
FILLER = r"\s*(?:反而|也会|就会|会|就|也|还|都|变得|得)?\s*"
"""What Chinese slips between the words of a phrase ("差距反而越小", "entropy 会变大")."""


NUMBER = r"(\d+(?:\.\d+)?)"
FROM_TO = re.compile(
    r"(?:\bfrom\b|从)[^,，;；。\d]{0,24}?" + NUMBER + r"[^,，;；。\d]{0,16}?(?:\bto\b|到)[^,，;；。\d]{0,12}?" + NUMBER
)
"""A change given in figures: "going from β=0.1 to 0.5", "from batch 8 to batch 128", "γ 从 0.99 降到 0.9"."""


@dataclass(frozen=True)
class _Move:
    """Something said to go up or down: the quantity (`of_quantity`) or an effect of it."""

    start: int
    end: int
    up: bool
    of_quantity: bool


def _pattern(phrase: str) -> str:
    """A phrase as written, spaces optional, Chinese fillers allowed between its words and after
    the first two characters of a Chinese word, whole words on Latin edges."""
    parts = []
    for word in normalise(phrase).split():
        if len(word) >= 4 and all(CJK_CHAR.match(ch) for ch in word):
            parts.append(re.escape(word[:2]) + FILLER + re.escape(word[2:]))
        else:
            parts.append(re.escape(word))
    head = r"(?<![a-z0-9_@\-'’])" if phrase[:1].isascii() and phrase[:1].isalnum() else ""
    # "close to 0" is not in "close to 0.28"
    tail = r"(?![a-z0-9_]|[.,]\d)" if phrase[-1:].isascii() and phrase[-1:].isalnum() else ""
    return head + FILLER.join(parts) + tail


@cache
def _any(phrases: tuple[str, ...]) -> re.Pattern[str]:
    longest_first = sorted(phrases, key=len, reverse=True)
    return re.compile("|".join(f"(?:{_pattern(p)})" for p in longest_first))


def _spans(phrases: tuple[str, ...], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _any(phrases).finditer(text)] if phrases else []


def _overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in spans)


def _directed(
    stretch: str, names: list[tuple[tuple[int, int], bool, bool]], taken: list[tuple[int, int]]
) -> list[_Move]:
    """Each name (span, up-when-it-rises, is-the-quantity) with the direction word said of it, from
    just before or just after it and not across a comma: a word goes to the side it prefers
    (`_preference`), then to the nearer name."""
    words = [
        (span, up)
        for up, vocabulary in ((True, RISES), (False, FALLS))
        for span in _spans(vocabulary, stretch)
        if not _overlaps(span, taken) and not _overlaps(span, [n[0] for n in names])
    ]
    best: dict[int, tuple[tuple[int, int], int]] = {}  # name -> (preference, word)
    for w, ((start, end), _) in enumerate(words):
        word, attributive = stretch[start:end], stretch[end : end + 1] == "的"
        options = []
        for n, ((ns, ne), _, _) in enumerate(names):
            if ne <= start and start - ne <= AFTER and not BREAK.search(stretch[ne:start]):
                options.append((_preference(word, True, attributive), start - ne, n))
            elif ns >= end and ns - end <= BEFORE and not BREAK.search(stretch[end:ns]):
                options.append((_preference(word, False, attributive), ns - end, n))
        if options:
            rank, distance, n = min(options)
            if n not in best or (rank, distance) < best[n][0]:
                best[n] = ((rank, distance), w)
    out = []
    for n, (_, w) in best.items():
        (ns, ne), up_when_rises, of_quantity = names[n]
        (ws, we), up = words[w]
        out.append(_Move(min(ns, ws), max(ne, we), up == up_when_rises, of_quantity))
    return out


def _changed_in_figures(stretch: str, names: list[tuple[int, int]]) -> list[_Move]:
    """The quantity taken from one figure to another, where one of its names is inside the change
    or just before it ("β 从 0.1 调到 0.5")."""
    out = []
    for change in FROM_TO.finditer(stretch):
        before, after = float(change.group(1)), float(change.group(2))
        named = any(change.start() - BEFORE <= end and start <= change.end() for start, end in names)
        if named and before != after:
            out.append(_Move(change.start(), change.end(), after > before, True))
    return out


def _preference(word: str, after_name: bool, attributive: bool) -> int:
    """0 where the word goes with a name on that side, 1 where it goes there only for want of one
    on the other (a Chinese verb: either side, by distance; a Chinese word before 的 modifies the
    name after it: 更低的 variance)."""
    if CJK_CHAR.match(word[:1]):
        if attributive:
            return 1 if after_name else 0
        return 0 if after_name or normalise(word).replace(" ", "") in CJK_VERBS else 1
    return 0 if after_name == (" ".join(word.split()) in INTRANSITIVE) else 1


def _moves(trend: Trend, stretch: str) -> list[_Move]:
    q = trend.quantity
    phrases = [
        _Move(*span, up, of_quantity)
        for of_quantity, up, vocabulary in (
            (True, True, q.rises),
            (True, False, q.falls),
            (False, True, trend.raising),
            (False, False, trend.lowering),
        )
        for span in _spans(tuple(vocabulary), stretch)
    ]
    quantity_names = _spans(tuple(q.names), stretch)
    # an effect's words running into the quantity's name are the name's ("larger kl" in "a larger kl
    # coefficient" is the coefficient raised, not the divergence grown)
    phrases = [
        m
        for m in phrases
        if m.of_quantity or not any(m.start < end and start < m.end and m.end < end for start, end in quantity_names)
    ]
    phrases += _changed_in_figures(stretch, quantity_names)
    taken = [(m.start, m.end) for m in phrases]
    names = [(span, True, True) for span in quantity_names if not _overlaps(span, taken)]
    for measure in trend.measures:
        names += [
            (span, measure.up_when == "raised", False)
            for span in _spans(tuple(measure.names), stretch)
            if not _overlaps(span, taken) and not _overlaps(span, [n[0] for n in names])
        ]
    return phrases + _directed(stretch, names, taken)


def _negated(stretch: str) -> list[tuple[int, int]]:
    """The comma-separated pieces of a stretch that negate: what is said there is not claimed
    ("rollout 越旧，差距反而越小，不需要太在意 IS 修正" still claims its first two pieces)."""
    return [
        m.span() for m in re.finditer(r"[^,，:：]+", stretch) if NEGATION.search(m.group()) or DENIED.search(m.group())
    ]


def _turned_round(trend: Trend, stretch: str, *, right_way: bool = False) -> bool:
    """Is the trend stated the wrong way round in the stretch (or, with `right_way`, the right way)?"""
    negated = _negated(stretch)
    moves = [m for m in _moves(trend, stretch) if not _overlaps((m.start, m.end), negated)]
    quantity = sorted((m for m in moves if m.of_quantity), key=lambda m: m.start)
    if not quantity:
        return False
    said: list[set[bool]] = [set() for _ in quantity]
    for effect in (m for m in moves if not m.of_quantity):
        # An effect is said of the move of the quantity nearest to it ("想让策略更贴近参考模型，就把 β 调小").
        distance = [max(q.start - effect.end, effect.start - q.end, 0) for q in quantity]
        if min(distance) <= REACH:
            said[distance.index(min(distance))].add(effect.up)
    # One way only: an effect said both ways of one move is no claim to judge.
    return any(len(ups) == 1 and (next(iter(ups)) == q.up) is right_way for q, ups in zip(quantity, said, strict=True))


def reversed_trends(sentence: str) -> list[str]:
    """The wrong claims (misconception ids) of the trends the sentence states the wrong way round."""
    return [trend_id(t.id) for t in _turned(sentence)]


def states_right(misconception: str, sentence: str) -> bool:
    """Does the sentence state the right way round the trend this wrong claim turned round (blind
    trial 42's "a larger KL coefficient restricts exploration", after "… pushed away from the
    reference")?"""
    trend = next((t for t in load_facts().trends if trend_id(t.id) == misconception), None)
    if trend is None:
        return False
    claims = [c for c in CLAIM.findall(normalise(sentence)) if not ASKED.search(c)]
    return any(_turned_round(trend, s, right_way=True) for c in claims for s in CONTRAST.split(c) if s.strip())


def turns_round_a_trend_of(text: str, sentence: str) -> bool:
    """Does the sentence turn round a trend whose quantity `text` (a key point's words) names?
    Then it is no evidence for that point, whatever it reads like ("A larger beta lets the policy
    move further from the reference" read as the KL-regularised optimum, 0.9)."""
    named = normalise(text)
    return any(_any(tuple(t.quantity.names)).search(named) for t in _turned(sentence))


@lru_cache(maxsize=4096)
def _turned(sentence: str) -> tuple[Trend, ...]:
    claims = [c for c in CLAIM.findall(normalise(sentence)) if not ASKED.search(c)]
    stretches = [s for c in claims for s in CONTRAST.split(c) if s.strip()]
    return tuple(t for t in load_facts().trends if any(_turned_round(t, s) for s in stretches))
