"""The offline interviewer's voice: follow-ups, hints and replies from the bank and our templates.

A line is an acknowledgement (of what the answer got right, or of a protest) followed by the move:
a challenge, a new part, a step deeper, an expert probe, a hint. The variant of each is chosen by
the interviewer's running count of lines in the session, and no two variants open alike, so two
lines in a row never open the same way.
"""

from __future__ import annotations

import re
from string import Formatter

from agent.brains.listening import ABOUT_FORM, FILLER, META_LEAD, NEAR_STRENGTH, clarification_for
from agent.brains.parts import untouched_parts
from agent.brains.request import WriteRequest
from agent.judge.claims import miscounted
from agent.prompts import load_yaml
from agent.state import Assessment, CandidateAction, Decision, Evidence, Flag, Heard, Reference
from agent.text import CJK_CHAR, WORD, find_cue, normalise, shorten, stems
from common.terminal import clean_for_display
from knowledge.chunking import section_title
from knowledge.facts import challenges
from knowledge.models import KeyPoint, Misconception, Part, Question

QUOTE_CHARS = 90
CLAUSE_WORD = re.compile(
    r"\s+(?=(?:but|so|because|whereas|although|though)\b)|(?=但是|不过|而且)|(?<![是之])(?=所以|因为)", re.I
)
"""Clause breaks inside a sentence; not in 之所以 or 是因为, which belong to the clause they are in."""


def excerpt(sentence: str, limit: int = QUOTE_CHARS) -> str:
    # Cut at a word boundary: a report's wrong claim had ended "... biased by the critic, whic…".
    return shorten(" ".join(clean_for_display(sentence).split()), limit)


def _words(text: str) -> float:
    return len(WORD.findall(text)) + len(CJK_CHAR.findall(text)) / 2


def carries_content(clause: str) -> bool:
    """Words, not a greeting or a formula fragment: three words or more, and most of the clause in
    real words (variable names such as r_t or A_t do not count)."""
    visible = sum(not ch.isspace() for ch in clause)
    wordy = sum(len(w) for w in WORD.findall(clause) if len(w) >= 3) + len(CJK_CHAR.findall(clause))
    return _words(clause) >= 3 and visible > 0 and wordy / visible >= 0.45


LEADING_JOIN = re.compile(
    r"^(?:(?:and|or|but|so|then|while|which|although|though)\s+|(?:而且|或者|并且|然后|以及|但是|但|不过|然而|可是)\s*)",
    re.I,
)
"""A clause cut at a comma may open with the word that joined it: the quote starts after it."""
TURN = re.compile(r"^(?:(?:but|however|yet)\b|但|但是|不过|然而|可是)", re.I)
"""A clause opening with one of these turns against the one before: the speaker's claim follows."""
DANGLING = re.compile(
    r"\b(the|a|an|of|to|and|or|with|for|in|on|by|from|that|is|are)$|(?:是|把|被|和|与|跟|从|向|让|给)$", re.I
)
"""A clause ending in one of these was cut mid-thought (by the sentence splitter or the writer)."""
REASON = re.compile(r"^(?:(?:because|since)\b|因为|由于)", re.I)
"""A clause opening with one of these gives a reason: it is quoted with the claim before it."""
SETTING = re.compile(r"^(?:(?:for|in|on|with|as for|regarding)\b|对于|关于|至于|在)", re.I)
"""A short clause opening with one of these sets the scene ("For best-of-N", blind trial 42's quote
for an expert point): it names the subject, not the claim."""
PREMISE = re.compile(r"^(?:(?:if|when|whenever|once|unless)\b|如果|假如|要是|假设|一旦|只要|之所以)", re.I)
"""A clause opening with one of these states a condition, not a claim: "If the loss is all-reduced
twice" was quoted as the wrong claim of "..., nothing really happens"."""
ASKS_PRECISION = re.compile(
    r"^(?:(?:so\s+)?(?:concretely|specifically|precisely)|(?:make it|be) (?:concrete|precise|specific))\s*[,:]\s*|^具体(?:一点|来说|地说|点)\s*[：:，,]\s*",
    re.I,
)
"""A probe's own call for precision, dropped where the line already asks to go further or be precise
("能再说具体一点吗？具体一点：挑三个场景…" in blind trial 41)."""
PREMISE_END = re.compile(r"(?:的时候|时候|之后|以后|之前|的话|(?<![实同小及按耗暂当此这那准])时)$")
"""A Chinese condition marks its end instead: "同意你说的“只剩几条序列的时候”" agreed with a "when",
and blind trial 32's "你说“代入 Bradley-Terry 偏好模型时”，这个对" with a bare 时 (not 同时, 小时)."""


def claim_quote(
    sentence: str, cues: list[str] | None = None, claim: str = "", limit: int = QUOTE_CHARS, *, not_claim: str = ""
) -> str | None:
    """The clause of a sentence that carries the claim: the one naming a cue and sharing most words
    with `claim` beyond those it shares with `not_claim` (a wrong claim's correction: "we subtract a
    baseline to reduce variance, although it adds a small bias" is challenged on the bias, not on
    the variance), with fillers and talk about the conversation taken off its front, cut at a word
    boundary. None if no clause carries content (a greeting, a protest, a formula fragment)."""
    clauses, lead_ins, turned = [], set(), set()
    for piece in _clauses(" ".join(clean_for_display(sentence).split())):
        opens_with_but = bool(TURN.match(piece.strip()))
        while piece:
            lead = FILLER.match(piece) or META_LEAD.match(piece)
            if not lead or not lead.group(0):
                break
            piece = piece[lead.end() :]
        introduces = piece.rstrip().endswith((":", "："))
        piece = LEADING_JOIN.sub("", piece.strip(" ,;:，；：、.。"))
        if carries_content(piece) and not DANGLING.search(piece):
            clauses.append(piece)
            if introduces or (SETTING.match(piece) and _words(piece) <= 4):
                lead_ins.add(piece)
            if opens_with_but:
                turned.add(piece)
    if not clauses:
        return None
    wanted = stems(claim) if claim else frozenset()
    unwanted = stems(not_claim) - wanted if not_claim else frozenset()

    def weight(clause: str) -> tuple[bool, bool, int, bool, bool]:
        # A clause that introduces what follows ("vLLM 和 SGLang 的区别：") names the subject, not the
        # claim; between equals, what comes after "but" is what the speaker holds ("atomic add 会带来
        # run-to-run 的不确定性，但解决办法其实就是用 atomic add" was challenged on its right half).
        named = bool(cues and find_cue(normalise(clause), cues))
        words = stems(clause)
        shared = len(words & wanted) - len(words & unwanted)
        return (clause not in lead_ins, named, shared, _words(clause) >= 4, clause in turned)

    text = " ".join(clean_for_display(sentence).split())
    # The best clause that still carries content once joined to its consequence and cut to length: a
    # formula's "On min(: L = E[min(r*A, clip(r, 1-eps, 1+eps)*A)]: when A > …" had been quoted.
    for best in sorted(clauses, key=weight, reverse=True):
        quote = shorten(_with_consequence(text, clauses, best), limit)
        if carries_content(quote.rstrip("…")):
            return quote
    return None


def _with_consequence(text: str, clauses: list[str], best: str) -> str:
    """A condition is quoted with the clause that says what follows from it, and a reason with the
    claim it is the reason for ("because the count was all-reduced twice" alone claims nothing)."""
    at = clauses.index(best)
    start = text.find(best)
    head = text[:start].rstrip(" ,;:，；：、") if start > 0 else ""
    claim = _clauses(head)[-1].strip() if REASON.match(best) and head else ""
    if _words(claim) >= 2:
        before = text.rfind(claim, 0, start)
        best, start = text[before : start + len(best)], before
    while (PREMISE.match(clauses[at]) or PREMISE_END.search(clauses[at])) and at + 1 < len(clauses) and start >= 0:
        at += 1
        end = text.find(clauses[at], start + len(best))
        if end < 0:
            break
        best = text[start : end + len(clauses[at])]
    return best


def claim_of(item: KeyPoint | Misconception) -> str:
    """What a point or misconception claims, in both languages: the clause of a Chinese sentence that
    carries it shares words with the Chinese statement (blind trial 40's "这个要看 all-reduce 用的是 SUM 还是
    AVG，以及……用来 backward 的 loss 还是只是拿来 log 的数值" was quoted on its SUM/AVG half, for the point
    on logging against the gradient path)."""
    return f"{item.statement} {item.statement_zh or ''}"


def shown_words(question: Question, evidence: Evidence, limit: int = 160) -> str:
    """The candidate's words that showed a point, for the review and the report: the clause of the
    quoted sentence that carries it, so a sentence that made two points is not quoted whole twice."""
    point = question.key_point(evidence.key_point)
    return claim_quote(evidence.quote, point.cues.all(), claim_of(point), limit) or excerpt(evidence.quote, limit)


def _clauses(sentence: str) -> list[str]:
    """The sentence split at its clause breaks, never inside brackets ("H(p,q) = H(p) + KL" stays
    whole) nor at 、, which lists items inside one clause ("把参数、梯度和优化器状态都切分" was quoted
    as "把参数")."""
    pieces, start, depth = [], 0, 0
    for i, ch in enumerate(sentence):
        depth += ch in "([{（"
        depth -= ch in ")]}）" and depth > 0
        if depth == 0 and ch in ",;:，；：" and (ch not in ",:" or sentence[i + 1 : i + 2] in (" ", "")):
            pieces.append(sentence[start : i + 1])
            start = i + 1
    pieces.append(sentence[start:])
    return [part for piece in pieces for part in CLAUSE_WORD.split(piece)]


def opening(text: str) -> str:
    """How a line opens: its first two words, or its first three Chinese characters."""
    body = re.sub(r"[^\w\u3400-\u9fff']+|(?<!\w)'|'(?!\w)", " ", text).strip().lower()
    if CJK_CHAR.match(body[:1]):
        return body.replace(" ", "")[:3]
    return " ".join(body.split()[:2])


def part_name(part: Part, lang: str) -> str:
    """A part as it reads inside a sentence ("how clipping works in PPO", not "How ...")."""
    text = part.get(lang).rstrip("。.?？")
    if lang != "zh" and len(text) > 1 and text[0].isupper() and text[1].islower():
        return text[0].lower() + text[1:]
    return text


def _challenge_of(question: Question, misconception: str | None, lang: str) -> str | None:
    """The question written to make the candidate test a wrong claim themselves, if it has one: the
    first nudge after that claim is named (it helps with exactly what the claim gets wrong)."""
    wrong = next((w for w in question.misconceptions if w.id == misconception), None)
    if wrong is not None:
        return wrong.challenge.get(lang) if wrong.challenge is not None else None
    return challenges()[misconception].get(lang) if misconception in challenges() else None


def probe_text(question: Question, target: str, lang: str) -> str:
    if target.startswith("expert:"):
        return question.expert_probes[int(target.split(":")[1])].get(lang)
    for wrong in question.misconceptions:
        if wrong.id == target:
            if wrong.challenge is not None:
                return wrong.challenge.get(lang)
            return point_behind(question, wrong).probe.get(lang)
    if target in challenges():
        return challenges()[target].get(lang)
    return question.key_point(target).probe.get(lang)


def point_behind(question: Question, wrong: Misconception) -> KeyPoint:
    """The key point a misconception gets wrong (the mechanism to revisit, and what a hint after its
    challenge points at): the one whose statement shares most words with the misconception and its
    correction, for the statement's length, the lower level on a tie. (The lowest-level point whose
    cue the statement touched sent "std normalisation is required" to "write the advantage out".)
    A misconception that names the point (`gets_wrong`) is taken at its word."""
    if wrong.gets_wrong is not None:
        return question.key_point(wrong.gets_wrong)
    said = stems(f"{wrong.statement} {wrong.correction}")
    by_level = sorted(question.key_points, key=lambda kp: kp.level)
    return max(by_level, key=lambda kp: len(said & stems(kp.statement)) / max(len(stems(kp.statement)), 1) ** 0.5)


def _latin_meets_chinese(left: str, right: str) -> bool:
    """A Latin letter or digit on one side of the seam, a Chinese character on the other."""
    a, b = left[-1:], right[:1]
    return bool(a and b) and (
        (CJK_CHAR.match(a) is not None and b.isascii() and b.isalnum())
        or (a.isascii() and a.isalnum() and CJK_CHAR.match(b) is not None)
    )


class Voice:
    """The templates of one language, each kind's variant picked by the line's number."""

    def __init__(self, lang: str, number: int):
        self.phrases = load_yaml("offline_wording.yaml")[lang]
        self.lang = lang
        self.number = number

    def say(self, kind: str, **values: str) -> str:
        template = self.phrases[kind][self.number % len(self.phrases[kind])]
        if self.lang != "zh":
            return template.format(**values)
        # A space where a Latin word set into the template meets its Chinese ("讲讲 PPO 的", not
        # "讲讲PPO的"); the values themselves are left as they are, so a quote stays exact.
        line = ""
        for text, name, _, _ in Formatter().parse(template):
            line += (" " if _latin_meets_chinese(line, text) else "") + text
            if name is not None:
                line += (" " if _latin_meets_chinese(line, values[name]) else "") + values[name]
        return line

    def join(self, *pieces: str | None) -> str:
        return ("" if self.lang == "zh" else " ").join(p for p in pieces if p)


def phrase(request: WriteRequest) -> str:
    """The follow-up or hint for the request's decision."""
    question, decision, assessment, lang = request.question, request.decision, request.assessment, request.lang
    voice = Voice(lang, request.turn_number)
    target = decision.target or question.key_points[0].id
    lead = _protest_reply(decision, voice) if decision.heard is Heard.already_said else None
    if decision.action == "hint":
        redirect = _redirect_lead(question, decision, assessment, voice)
        check = _challenge_of(question, decision.challenge, lang) if decision.rung == 0 else None
        nudge = voice.say("hint_check", check=check) if check else None
        rung = decision.rung + (target in request.asked and restates_its_probe(question, target, lang))
        return voice.join(lead or redirect, nudge or _hint(question, target, rung, request.references, voice))
    probe = probe_text(question, target, lang)
    if any(hit.misconception == target for hit in assessment.misconceptions):
        quote = _wrong_quote(question, assessment, target)
        challenge = (
            voice.say("misconception", quote=quote, probe=probe)
            if quote
            else voice.say("misconception_unquoted", probe=probe)
        )
        return voice.join(lead, challenge)
    nothing = {Flag.off_topic, Flag.other_concept, Flag.gibberish}
    if nothing & set(assessment.flags) and not assessment.covered:
        return voice.join(lead, voice.say("off_topic", prompt=question.prompt.get(lang), probe=probe))
    if target.startswith("expert:"):
        body = voice.say("expert", probe=probe)
    else:
        point = question.key_point(target)
        said = claim_quote(decision.said, point.cues.all(), claim_of(point)) if decision.said and not lead else None
        covered = {e.key_point for e in assessment.covered}
        fresh_part = len(question.parts) > 1 and point.part in {p.id for p in untouched_parts(question, covered)}
        if said:
            # Figures given for a point that is its figures, none of them the point's: check them.
            kind = "figures_check" if miscounted(question, point, decision.said or "") else "partly"
            body = voice.say(kind, quote=said, probe=_without_call_for_precision(probe))
        elif fresh_part and point.part is not None:  # fresh_part implies a part
            # A part whose concept was only named is not one "you haven't answered yet", nor one the
            # candidate said something toward ("PPO epoch 一般就 1 到 2，多了就 off-policy" was met
            # with "我们来看另一部分：PPO epoch 数怎么选").
            on_part = {kp.id for kp in question.points_of(point.part)}
            named = bool(on_part & covered)
            # Said toward in this answer, or in an earlier one (a trial's first answer gave why DAPO
            # drops the KL, capped by a wrong claim beside it, and was later told "You haven't got to
            # why methods such as DAPO and GSPO drop it yet").
            began = [
                *((e.key_point, e.quote) for e in assessment.near_misses if (e.strength or 0) >= NEAR_STRENGTH),
                *request.partly.items(),
            ]
            # ... or a sentence credited for another point that names the part (blind trial 38 gave
            # "局限是 ..." after each of eight methods and heard that their limitations were unanswered).
            touched = any(
                point_id in on_part and _names_part(question, point.part, quote) for point_id, quote in began
            ) or any(_names_part(question, point.part, e.quote) for e in assessment.covered)
            part = part_name(question.part(point.part), lang)
            kind = "part_further" if named else "part_touched" if touched else "new_part"
            if lead:  # after "I couldn't find that", "You made a start on X" read as a contradiction
                kind = "part_after_protest"
            if _probe_names_part(question, point.part, probe, lang):
                kind += "_unnamed"
            body = voice.say(kind, part=part, probe=probe)
        elif lead and not decision.said:
            # "I looked and did not find it; let's go on": not "one more on this point".
            body = voice.say("elsewhere", probe=probe)
        else:
            body = voice.say("deeper" if covered else "narrower", probe=probe)
        return voice.join(lead or _acknowledge(question, assessment, voice, besides=said), body)
    return voice.join(lead or _acknowledge(question, assessment, voice), body)


PART_ASKING = stems(
    "how what why which does choose number works differs happens matters 怎么 什么 为什么 哪些 如何 多少"
)
"""Words of a part's text that ask rather than name ("how", "differs", 怎么)."""


def _without_call_for_precision(probe: str) -> str:
    rest = ASKS_PRECISION.sub("", probe, count=1)
    return rest[:1].upper() + rest[1:] if rest != probe else probe


def _names_part(question: Question, part: str, quote: str) -> bool:
    """Does the sentence name what the part is about (a word of the part's own text, or a cue phrase
    of one of its points)? Only then is it "a start" on the part: a sentence the judge read as near a
    CISPO point, about PPO's min and never naming CISPO, had the candidate told "You made a start on
    how CISPO differs"."""
    named = question.part(part)
    if stems(quote) & (stems(f"{named.en} {named.zh}") - PART_ASKING):
        return True
    text = normalise(quote)
    return any(find_cue(text, kp.cues.all()) for kp in question.points_of(part))


def _probe_names_part(question: Question, part: str, probe: str, lang: str) -> bool:
    """Does the probe name everything the part's own text names? Then naming the part too says it
    twice: "Now a part you haven't answered yet: how CISPO differs. How does CISPO differ from PPO's
    clipping?" (a blind trial)."""
    named = stems(question.part(part).get(lang))
    first = re.split(r"(?<=[?？。])\s*|(?<=[.!])\s+", probe.strip())[0]
    return bool(named - PART_ASKING) and named <= stems(first)


def _wrong_quote(question: Question, assessment: Assessment, misconception: str) -> str | None:
    """The clause where the candidate stated the misconception, cut to its claim."""
    hit = next((h for h in assessment.misconceptions if h.misconception == misconception), None)
    if hit is None:
        return None
    wrong = question.misconception(misconception)
    return claim_quote(
        hit.quote, wrong.cues.all(), claim_of(wrong), not_claim=f"{wrong.correction} {wrong.correction_zh or ''}"
    )


def _redirect_lead(question: Question, decision: Decision, assessment: Assessment, voice: Voice) -> str | None:
    """Before a hint that redirects an answer which showed nothing: the wrong claim it stood on,
    named, or that it explained a neighbouring concept."""
    if decision.challenge is not None:
        quote = _wrong_quote(question, assessment, decision.challenge)
        return voice.say("redirect_wrong", quote=quote) if quote else voice.say("redirect_wrong_unquoted")
    if Flag.other_concept in assessment.flags and not assessment.covered:
        return voice.say("redirect_other")
    return None


AFFIRM_STRENGTH = 0.95
"""A credit this sure is acknowledged as right; a weaker one (a cue phrase the judge by meaning did
not confirm, a borderline reading) is only acknowledged as heard: the judge credits the right terms
in some wrong claims, and an interviewer who calls those correct teaches the candidate an error."""


def _acknowledge(question: Question, assessment: Assessment, voice: Voice, besides: str | None = None) -> str | None:
    """What the answer got right, in the candidate's words: the clause of theirs that carries it.
    `besides` is a clause the line quotes already: one quote a line ("你提到“A”。你前面提到“B”，能再说
    具体一点吗？" read as two half-thoughts). An affirmation always names what it affirms: a bare
    "That's right." (there was one beside another quote, and for a list of terms) reads as approval
    of the whole answer, and a blind trial's answer got one with a planted error standing in it
    ("R1-Zero was trained with PPO against a learned neural reward model")."""
    fresh = [e for e in assessment.covered if e.key_point in assessment.new]
    if not fresh:
        return None
    best = max(fresh, key=lambda e: (e.level, e.strength or 0))
    point = question.key_point(best.key_point)
    if besides or Flag.keyword_list in assessment.flags:
        return None
    quote = claim_quote(best.quote, point.cues.all(), claim_of(point))
    if not quote:
        return None
    sure = (best.strength or 0) >= AFFIRM_STRENGTH
    return voice.say("acknowledge_quote" if sure else "acknowledge_heard", quote=quote)


def closing_reply(
    question: Question,
    decision: Decision | None,
    lang: str,
    number: int,
    wrong: tuple[Assessment, str] | None = None,
    *,
    last: CandidateAction = CandidateAction.answer,
    unshown: Part | None = None,
    admitted: bool = False,
) -> str | None:
    """What is said as a question closes on the candidate's last reply: the answer to "I already
    said that", and the correction of a wrong claim no follow-up challenged (`wrong`: the assessment
    that holds it and the misconception's id), since the question closed before one could (its last
    follow-up was spent, or the candidate moved on); else a plain close, neither praise nor verdict
    (a question closed on an answer in silence, and trial users read the review that followed as
    the session breaking off), which says why when the candidate's last key asked for a hint no
    longer given. Nothing when the session ends without a decision. `unshown` is a part of the
    question nothing was shown on: a close the interviewer chose names it, so that a question closed
    at full depth with a part marked ✗ in the review is not a surprise (a trial user's). `admitted`:
    the last reply said it did not know part of what was asked ("Ulysses 的并行度受什么限制，这个我不
    知道", and the question closed on "这道题就先到这里"): the close says where that part is answered."""
    if decision is None:
        return None
    voice = Voice(lang, number)
    protest = _protest_reply(decision, voice) if decision.heard is Heard.already_said else None
    correction = None
    if wrong is not None:
        assessment, misconception = wrong
        text = question.misconception(misconception).correction_in(lang)
        quote = _wrong_quote(question, assessment, misconception)
        correction = (
            voice.say("closing_correction", quote=quote, correction=text)
            if quote
            else voice.say("closing_correction_unquoted", correction=text)
        )
    if protest or correction:
        return voice.join(protest, correction)
    if last is CandidateAction.skip or decision.heard is Heard.move_on:
        return voice.say("closing_skipped")
    if last is CandidateAction.hint:
        return voice.say("closing_no_hint")
    if unshown is not None:
        return voice.say("closing_part_left", part=_part_phrase(unshown, voice.lang))
    if admitted:
        return voice.say("closing_gap")
    return voice.say("closing")


def _part_phrase(part: Part, lang: str) -> str:
    """A part's sub-question set inside a sentence: "how to ..." in English, not "How to ..."."""
    text = part.get(lang)
    if lang == "zh" or text[1:2].isupper():
        return text
    return text[:1].lower() + text[1:]


def _protest_reply(decision: Decision, voice: Voice) -> str:
    """On "I already said that": what was found in the earlier answers (already cut to its claim),
    or, found only in the protest itself, that it counts now."""
    if not decision.said:
        return voice.say("protest_not_found")
    return voice.say("protest_added" if decision.said_now else "protest_found", quote=decision.said)


RESTATES = 0.6
"""A first hint with this share of its words in the point's probe (and the question) only asks the
probe again."""


def restates_its_probe(question: Question, target: str, lang: str) -> bool:
    """Does the point's first hint only ask its probe (or the question) again? After the probe was
    asked, the ladder then starts a rung higher (a trial: "Which tokens might it treat unfairly?"
    right after "Which tokens does PPO-style clipping hurt in long reasoning?")."""
    point = question.key_point(target)
    if not point.hints:
        return False
    words = stems(point.hints[0].get(lang))
    asked = stems(f"{point.probe.get(lang)} {question.prompt.get(lang)}")
    return bool(words) and len(words & asked) / len(words) >= RESTATES


def _hint(question: Question, target: str, rung: int, references: tuple[Reference, ...], voice: Voice) -> str:
    """The next rung of the key point's hint ladder; past its written hints, a pointer to our notes."""
    point = question.key_point(target)
    if rung < len(point.hints):
        return voice.say("hint", hint=point.hints[rung].get(voice.lang))
    cue = (point.cues.zh if voice.lang == "zh" else point.cues.en)[0]
    heading = _heading_for(references, point.cues.all()) or question.prompt.get(voice.lang)[:40]
    return voice.say("hint_from_notes", cue=cue, heading=heading)


def _heading_for(references: tuple[Reference, ...], cues: list[str]) -> str | None:
    """The heading of the reference chunk that talks most about the target's cues."""
    best, best_hits = None, 0
    for ref in references:
        text = normalise(ref.text)
        hits = sum(1 for cue in cues if find_cue(text, [cue]))
        if hits > best_hits:
            best, best_hits = section_title(ref.heading), hits
    return best


def respond(kind: str, question: Question, lang: str, turn_number: int, asked: str, text: str = "") -> str:
    """The interviewer's answer to a request in words: a clarifying question (answered from the
    bank, then the question again), a request to repeat, a pause, or a bare yes or no (why?)."""
    voice = Voice(lang, turn_number)
    if kind == "clarify":
        entry = clarification_for(question, text)
        if entry is None:
            return voice.say("clarify_form" if ABOUT_FORM.search(text) else "clarify_unknown", asked=asked)
        return voice.say("clarify", answer=entry.answer.get(lang), asked=asked)
    if kind == "repeat":
        return voice.say("repeat", asked=asked)
    if kind == "terse":
        return voice.say("terse")
    return voice.say("wait")
