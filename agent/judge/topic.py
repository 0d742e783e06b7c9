"""Is an answer that shows nothing about the question at all, or on it and just short of a point?

Only the first is off-topic. Calling a hedged, plain or wrong answer on the asked topic "off-topic"
tells a candidate who was trying that they were not, and it was the judge's most common verdict on
weak answers (101 of 175 blind on-topic replies, `rl-interview eval --topic`). An answer strays
when it sits far from everything the question's exemplars say (a risotto recipe, a pun on
"batch"), when a sentence sits nearer another question's points than this one's exemplars, or when
its words are mostly not this question's: too few of them are, or many more are another
question's (an answer to another question). The bars were chosen on the dev half of the blind
replies (README: "Off-topic, or just short of a point").
"""

from __future__ import annotations

from collections.abc import Mapping

from agent.judge.index import tokens

TOPIC_FLOOR = 0.87
"""e5 cosine to the question's nearest exemplar below which an answer is about something else."""
ELSEWHERE_MARGIN = -0.03
"""How much nearer another question's points than this question's exemplars a sentence may sit."""
SHARED_WORDS = 0.15
"""Share of the answer's content words that this question's exemplars use, below which it strays."""
ANOTHER_QUESTIONS_WORDS = 0.3
"""How much larger the share of another question's words may be."""

OWN_TOPIC_WORDS = 20
"""Content words from which an answer that strays has a topic of its own: then even what it was
credited or named in passing does not count (an answer to another question, which shares a term or
two with this one, scores 0); a shorter one that strays is off-topic only if it showed nothing."""

FUNCTION_WORDS = frozenset(
    "the and that this with for are was were you your they them then than have has had not but just like "
    "its it's into from about what when which would could should there their will can also some more most "
    "very much really think because been being does did doing make made other such only over same each both "
    "well even still again here while where who how why all any one two our out off".split()
)


def content_words(text: str) -> frozenset[str]:
    """Word stems of three letters or more and Chinese character pairs, without function words or numbers."""
    return frozenset(
        t
        for t in tokens(text)
        if (len(t) >= 3 or "\u3400" <= t[0] <= "\u9fff") and t not in FUNCTION_WORDS and not t[0].isdigit()
    )


DOMAIN_WORDS = 0.4
"""Share of an answer's content words that some question's exemplars use, below which the answer is
outside the field altogether (a pizza, a dog's walks), not about a neighbouring concept of it."""


def in_the_field(text: str, vocabularies: Mapping[str, frozenset[str]]) -> bool:
    """Is the answer about something of the question bank's field, if not the question asked? A
    trial user's pizza was told it "describes a neighbouring idea"."""
    words = content_words(text)
    return any(len(words & vocabulary) >= DOMAIN_WORDS * len(words) for vocabulary in vocabularies.values())


def has_a_topic_of_its_own(text: str) -> bool:
    return len(content_words(text)) >= OWN_TOPIC_WORDS


def strays(
    question_id: str,
    nearest_here: list[float],
    nearest_elsewhere: list[float],
    text: str,
    vocabularies: Mapping[str, frozenset[str]],
) -> bool:
    """Does an answer (its sentences' similarity to this question's nearest exemplar and to other
    questions' nearest point, its text) talk about something other than the question?"""
    if not nearest_here:
        return True
    words = content_words(text)
    share = {qid: len(words & vocabulary) / max(len(words), 1) for qid, vocabulary in vocabularies.items()}
    own = share.get(question_id, 0.0)
    rival = max((s for qid, s in share.items() if qid != question_id), default=0.0)
    margin = max(h - e for h, e in zip(nearest_here, nearest_elsewhere))
    return (
        max(nearest_here) < TOPIC_FLOOR
        or margin < ELSEWHERE_MARGIN
        or own < SHARED_WORDS
        or own - rival < -ANOTHER_QUESTIONS_WORDS
    )
