"""`rl-interview bank new`: a commented template of a question of your own, with every field, and
its reference note. The template is valid as written (so `bank validate` passes at once and the
question can be tried); every text in it says what to put there."""

from __future__ import annotations

from pathlib import Path

from common.errors import InputError
from knowledge.models import TOPICS, USER_QUESTION_ID, Section

DEFAULT_TOPIC = {Section.algorithm: "reward", Section.infrastructure: "rollout"}


class TemplateError(InputError, ValueError):
    """The id, section, topic or folder cannot be used; the message says what can."""


QUESTION_TEMPLATE = """\
# Your own question for rl-interview. Check it with: rl-interview bank validate
# Every field is listed; the ones marked (optional) may be deleted, the commented ones uncommented. Texts are plain, and formulas may
# be written in LaTeX between dollars ($r_t(\\theta)$): they are shown in Unicode.

# The id: my-<words>, the same as the file name. Ids algo-NN and infra-NN are ours.
id: {id}
section: {section}                # algorithm or infrastructure
# One or more of: {topics}
topics: [{topic}]
difficulty: 2                     # 1 (warm-up) to 3 (hard): sessions go from easier to harder

# The question as the interviewer asks it, in English and Chinese. Ask every part you want answered.
prompt:
  en: "TODO: the question, in English? And its second part?"
  zh: "TODO：中文的问题？以及第二部分？"

# (optional) The parts of the question: its sub-questions, in the order the prompt asks them. With
# parts, every key point names the part it answers (uncomment its `part:` line too), and the
# interviewer touches every part before it probes deeper.
# parts:
#   - id: first-part
#     en: "TODO: the first sub-question"
#     zh: "TODO：第一个子问题"
#   - id: second-part
#     en: "TODO: the second sub-question"
#     zh: "TODO：第二个子问题"

# (optional) Other wordings of the same question that keep all of its parts. A session asks one of
# them (or the prompt) and never the one you saw last, so you answer the question, not a text you
# remember. `bank validate` checks that each keeps the question's parts.
wordings: []
#  - en: "TODO: the same question, worded differently?"
#    zh: "TODO：换一种问法的同一个问题？"

# The rubric: at least five key points, spanning depth levels 1 (recall) to 4 (expert).
#   level 1 recall: names the concept      level 2 mechanism: how it works
#   level 3 reasoning: why, trade-offs     level 4 expert: figures, derivations, recent variants
# cues: short phrases that show the point in an answer (matched case-insensitively), per language.
# probe: the follow-up the interviewer asks when the point is missing.
# part (with parts): the id of the part it answers. hints (optional): up to three, from a gentle
#   nudge to an almost-answer; none states the point outright.
# figures (optional, true or false): the point is its numbers or a formula, so a sentence that gives
#   none (only names a paper) does not show it.
# sources (optional): where a fact can be checked: an arXiv id (arXiv:2402.03300), a URL, or code
#   pinned to a commit (owner/repo:path@commit), each with what it supports.
key_points:
  - id: names-the-idea
    level: 1
    statement: "TODO: the basic fact a candidate must state."
    # statement_zh: "TODO：同一句话的中文（可选；中文会话的回顾和报告里显示）。"
    cues:
      en: ["TODO cue phrase"]
      zh: ["TODO 提示短语"]
    # part: first-part
    probe:
      en: "TODO: a question that asks for this fact?"
      zh: "TODO：追问这一点的问题？"
    # hints:
    #   - en: "TODO: a gentle nudge towards the fact?"
    #     zh: "TODO：轻轻提示一下？"
    sources: []
  - id: how-it-works
    level: 2
    statement: "TODO: how it works, step by step."
    cues:
      en: ["TODO mechanism phrase"]
      zh: ["TODO 机制短语"]
    # part: first-part
    probe:
      en: "TODO: how does it work?"
      zh: "TODO：它是怎么工作的？"
  - id: why-it-matters
    level: 3
    statement: "TODO: why it is done this way, and what it trades off."
    cues:
      en: ["TODO trade-off phrase"]
      zh: ["TODO 权衡短语"]
    # part: second-part
    probe:
      en: "TODO: why this way, and what does it cost?"
      zh: "TODO：为什么这样做？代价是什么？"
  - id: when-it-fails
    level: 3
    statement: "TODO: a failure mode and its cause."
    cues:
      en: ["TODO failure phrase"]
      zh: ["TODO 失败短语"]
    # part: second-part
    probe:
      en: "TODO: when does it go wrong?"
      zh: "TODO：什么时候会出问题？"
  - id: expert-detail
    level: 4
    statement: "TODO: a figure, a derivation or a recent variant an expert would know."
    # figures: true
    cues:
      en: ["TODO expert phrase"]
      zh: ["TODO 专家短语"]
    # part: second-part
    probe:
      en: "TODO: what are the numbers in practice?"
      zh: "TODO：实践中的数字是多少？"

# Wrong claims candidates make, with how to recognise them (cues) and the correction.
misconceptions:
  - id: common-mistake
    statement: "TODO: a claim that sounds right but is wrong."
    # statement_zh: "TODO：这个错误说法的中文（可选）。"
    cues:
      en: ["TODO wrong-claim phrase"]
      zh: ["TODO 错误说法"]
    correction: "TODO: what is true instead, and why."
    # correction_zh: "TODO：纠正的中文（可选）。"
    # (optional) What the interviewer asks right after the claim: makes the candidate test it, never
    # states the correction.
    # challenge:
    #   en: "TODO: a small example or step that would expose the claim?"
    #   zh: "TODO：一个能让候选人自己发现问题的小例子或推导？"
    # (optional) Words one of which a sentence read by meaning must use to be charged with the claim:
    # its wrong part, where the rest of the claim is right.
    # needs: ["TODO wrong word"]
    # (optional) The key point the claim gets wrong, where the shared words would pick another: its
    # challenge revisits that point, and showing it later puts the claim right.
    # gets_wrong: names-the-idea
    sources: []

# Asked once levels 1-3 are covered, to find out whether the candidate reaches level 4.
expert_probes:
  - en: "TODO: a question only an expert answers well?"
    zh: "TODO：只有专家才答得好的问题？"

# (optional) Questions a candidate may ask back about the prompt, with the interviewer's answer.
# clarifications:
#   - asks:
#       en: "TODO: do you mean A or B?"
#       zh: "TODO：是指 A 还是 B？"
#     answer:
#       en: "TODO: A."
#       zh: "TODO：A。"

# What a strong candidate would say, shown in the review after the question.
model_answer: "TODO: the model answer, covering every key point."
# (optional) The model answer in Chinese, shown in a Chinese session (the English is shown without it).
# model_answer_zh: "TODO：参考答案的中文。"

# (optional) Figures the model answer states, quoted exactly, each with its sources.
figures: []

# The reference notes the model answer draws on: <id>.md beside this file, which must name the
# question on a line `Question: <id>`. `kb build` indexes them; the library shows them.
notes: [{id}]

# (optional) When you last checked the entry against its sources, as YYYY-MM-DD.
reviewed: null
"""

NOTE_TEMPLATE = """\
# TODO: the note's title

Question: {id}

## TODO: first section

What the reader needs to know for the first key point, with the facts behind it.

## TODO: second section

How it works, why, and where it fails.
"""


def check_id(question_id: str) -> None:
    if not USER_QUESTION_ID.match(question_id):
        raise TemplateError(
            f"{question_id!r} is not an id of your own: use my-<words> (lowercase letters, digits and "
            "hyphens), e.g. my-reward-hacking; algo-NN and infra-NN are ours"
        )


def write_template(folder: Path, question_id: str, section: Section, topic: str | None = None) -> list[Path]:
    """Write `<id>.yaml` and its note `<id>.md` into `folder`; never overwrites. The files written."""
    check_id(question_id)
    topic = topic or DEFAULT_TOPIC[section]
    if topic not in TOPICS:
        raise TemplateError(f"unknown topic {topic!r}; choose from {', '.join(sorted(TOPICS))}")
    question, note = folder / f"{question_id}.yaml", folder / f"{question_id}.md"
    existing = [path for path in (question, note) if path.exists()]
    if existing:
        raise TemplateError(f"{existing[0]} already exists; nothing was written")
    folder.mkdir(parents=True, exist_ok=True)
    topics = ", ".join(sorted(TOPICS))
    question.write_text(
        QUESTION_TEMPLATE.format(id=question_id, section=section.value, topic=topic, topics=topics), encoding="utf-8"
    )
    note.write_text(NOTE_TEMPLATE.format(id=question_id), encoding="utf-8")
    return [question, note]
