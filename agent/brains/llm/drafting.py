"""`rl-interview bank draft`: a model drafts a question of the user's own from a reference note.

The draft is validated like any bank file and written as `<id>.yaml.draft`, which the bank never
loads: it becomes a question only when the user has reviewed it and renamed it to `<id>.yaml`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from agent.brains.llm.client import LLMFailure, ModelClient
from agent.prompts import load_text
from common.errors import InputError
from common.settings import LLMSettings
from knowledge.bank import QUESTION_LINE
from knowledge.models import TOPICS, USER_QUESTION_ID, Question, Section

FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")
DRAFT_HEADER = """\
# DRAFT written by {model} from {note}: not used until you have reviewed it.
# Check every statement against the note, fix what is wrong, then rename this file to {id}.yaml
# and run: rl-interview bank validate
"""


class DraftError(InputError):
    """The model's draft is unusable; the message says why (nothing was written)."""


@dataclass(frozen=True)
class Draft:
    question: Question
    files: list[Path]


def draft_messages(question_id: str, section: Section, note: str) -> list[dict[str, str]]:
    prompt = load_text("bank_draft.md").format(
        id=question_id, section=section.value, note=note, topics=", ".join(sorted(TOPICS))
    )
    return [{"role": "user", "content": prompt}]


def parse_draft(text: str, question_id: str, section: Section) -> Question:
    try:
        data = json.loads(FENCE.sub("", text.strip()))
    except ValueError as exc:
        raise DraftError(f"the model's reply is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise DraftError("the model's reply is not a JSON object")
    data.update(id=question_id, section=section.value, notes=[question_id])
    try:
        return Question.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(entry)'}: {e['msg']}" for e in exc.errors()[:8])
        raise DraftError(f"the model's draft is not a valid question: {problems}") from None


async def draft_question(
    settings: LLMSettings, question_id: str, section: Section, note_path: Path, folder: Path
) -> Draft:
    if not USER_QUESTION_ID.match(question_id):
        raise DraftError(f"{question_id!r} is not an id of your own: use my-<words>, e.g. my-reward-hacking")
    note = note_path.read_text(encoding="utf-8")
    target, note_target = folder / f"{question_id}.yaml.draft", folder / f"{question_id}.md"
    if target.exists() or (folder / f"{question_id}.yaml").exists():
        raise DraftError(f"{question_id} already has a file in {folder}; nothing was written")
    try:
        reply = await ModelClient(settings).complete(draft_messages(question_id, section, note), max_tokens=4000)
    except LLMFailure as exc:
        raise DraftError(f"the model could not draft it: {exc.reason}") from None
    question = parse_draft(reply.text, question_id, section)
    folder.mkdir(parents=True, exist_ok=True)
    body = yaml.safe_dump(question.model_dump(mode="json", exclude_defaults=True), sort_keys=False, allow_unicode=True)
    target.write_text(
        DRAFT_HEADER.format(model=settings.model, note=note_path, id=question_id) + body, encoding="utf-8"
    )
    files = [target]
    if not note_target.exists():
        named = note if QUESTION_LINE.search(note) else _with_question_line(note, question_id)
        note_target.write_text(named, encoding="utf-8")
        files.append(note_target)
    return Draft(question, files)


def _with_question_line(note: str, question_id: str) -> str:
    """The note with `Question: <id>` after its title (or first), as our notes have it."""
    lines = note.splitlines()
    at = 1 if lines and lines[0].startswith("#") else 0
    return "\n".join([*lines[:at], "", f"Question: {question_id}", "", *lines[at:]]).strip() + "\n"
