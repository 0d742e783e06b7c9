"""The library: every question with the candidate's depth and due date, one question's full rubric
and note as Markdown, and a search over the knowledge store. Headless: the TUI's Library screen and
the tests use the same functions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent.labels import labels
from agent.learner.drill import Drill, drill_item, drill_of
from agent.learner.profile import History
from knowledge.bank import Bank
from knowledge.exemplars import EXEMPLAR_DIR
from knowledge.models import DEPTH_NAMES, Question


@dataclass(frozen=True)
class Entry:
    """One question as the library lists it."""

    question: Question
    depth: int | None
    """The depth the candidate's last attempt was rated on; None if never asked."""
    due: datetime | None
    """When its spaced-repetition card is due; None if never asked."""

    @property
    def searchable(self) -> str:
        q = self.question
        return " ".join([q.id, q.section.value, *q.topics, q.prompt.en, q.prompt.zh]).lower()

    def matches(self, text: str) -> bool:
        """Every word of `text` occurs in the id, section, topics or prompt (either language)."""
        return all(word in self.searchable for word in text.lower().split())


def entries(bank: Bank, history: History) -> list[Entry]:
    """Every question, by section, then topic, then id, with the candidate's depth and due date."""

    def entry(question: Question) -> Entry:
        attempts = history.of(question.id)
        card = history.cards.get(question.id)
        return Entry(question, attempts[-1].rated_depth if attempts else None, card.due if card else None)

    return sorted(
        (entry(q) for q in bank.questions()),
        key=lambda e: (e.question.section.value, e.question.topics[0], e.question.id),
    )


def judged_by_meaning(question: Question) -> bool:
    """Whether the judge by meaning has exemplars for the question (else it is scored on its cues)."""
    return (EXEMPLAR_DIR / f"{question.id}.yaml").is_file()


def question_markdown(question: Question, lang: str) -> str:
    """The question, its key points by level, misconceptions with corrections and the model answer,
    with the words around them in `lang` (as the bank's texts are)."""
    say = labels(lang)
    origin = say.name("question_origin", "yours" if question.yours else "ours")
    judge = say.name("question_judged", "meaning" if judged_by_meaning(question) else "cues")
    section = say.name("sections", question.section.value)
    difficulty = say("question_difficulty", difficulty=question.difficulty)
    lines = [
        f"# {question.id}",
        "",
        f"*{origin} · {section} · {say.topics(question.topics)} · {difficulty} · {judge}*",
        "",
        question.prompt.get(lang),
        "",
    ]
    if question.parts:
        lines += [f"## {say('parts')}", ""]
        lines += [f"{i}. {part.get(lang)}" for i, part in enumerate(question.parts, 1)]
        lines.append("")
    for index, wording in enumerate(question.wordings, 1):
        lines += [f"> {say('question_also_asked', index=index, wording=wording.get(lang))}", ">"]
    if question.wordings:
        lines.pop()
        lines.append("")
    lines += [f"## {say('question_levels')}", ""]
    for level in range(1, len(DEPTH_NAMES)):  # a key point's levels are 1-4
        points = [kp for kp in question.key_points if kp.level == level]
        if points:
            lines += [f"### {say('question_level', level=level, name=say.depth_name(level))}", ""]
            lines += [
                f"- {kp.statement_in(lang)}"
                + (say("question_part", part=question.part(kp.part).get(lang)) if kp.part else "")
                for kp in points
            ]
            lines.append("")
    lines += [f"## {say('misconceptions')}", ""]
    for wrong in question.misconceptions:
        lines += [
            f"- {say('question_wrong', statement=wrong.statement_in(lang))}",
            f"  - {say('correction', correction=wrong.correction_in(lang))}",
        ]
    lines += ["", f"## {say('model_answer')}", "", question.model_answer_in(lang)]
    return "\n".join(lines)


def drill_now(history: History, bank: Bank, question_id: str, now: datetime) -> Drill:
    """A drill on one question, opening on what the candidate has not shown yet (if seen before)."""
    return drill_of([drill_item(history, bank, bank[question_id], now, "chosen")])


@dataclass(frozen=True)
class SearchHit:
    question_id: str | None
    source: str
    heading: str
    text: str


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    note: str | None = None
    """Why the search did not use the knowledge store, when it did not."""
    unbuilt: bool = False
    """It did not because the store is not built yet (the screen says so in its own language)."""


LATIN = re.compile(r"[A-Za-z0-9_.+-]+")
CJK = re.compile(r"[\u3400-\u9fff]")


def search(settings: Any, query: str, k: int = 8, bank: Bank | None = None) -> SearchResult:
    """The knowledge store's hybrid search; before `kb build`, a lexical search of the notes, each
    note also found by its question's Chinese wording (`bank`): the notes are English, and a trial's
    "重要性采样" found none of them."""
    from agent.interview.retrieval import NotesRetriever
    from knowledge.bank import user_note_files
    from knowledge.lexical import LexicalIndex
    from knowledge.store import KnowledgeStore, StoreError

    if settings.chroma_url or (settings.store_dir / "chroma" / "chroma.sqlite3").exists():
        try:
            found = KnowledgeStore(settings).search(query, k)
            return SearchResult([SearchHit(h.question_id, h.source, h.heading, h.text) for h in found])
        except StoreError as exc:
            note = f"{exc}; searched the notes directly instead"
    else:
        note = "the knowledge store is not built (rl-interview kb build): searched our notes directly"
    unbuilt = not settings.chroma_url and not (settings.store_dir / "chroma" / "chroma.sqlite3").exists()
    chunks = NotesRetriever(settings.knowledge.chunk_tokens, user_note_files(settings.bank_paths)).all_chunks()
    if not chunks:
        return SearchResult([], note, unbuilt)

    def in_chinese(question_id: str | None) -> str:
        if bank is None or question_id is None or question_id not in bank:
            return ""
        question = bank[question_id]
        words = " ".join([question.prompt.zh, *(kp.statement_zh or "" for kp in question.key_points)])
        return LATIN.sub(" ", words)  # its Chinese only: its English terms are the notes' own

    scores = LexicalIndex([f"{c.heading}\n{c.text}" for c in chunks]).scores(query)
    if CJK.search(query):  # an English search ranks the notes on their own words alone, as before
        scores = scores + LexicalIndex([in_chinese(c.question_id) for c in chunks]).scores(query)
    order = [i for i in sorted(range(len(chunks)), key=lambda i: -scores[i]) if scores[i] > 0][:k]
    return SearchResult(
        [SearchHit(chunks[i].question_id, chunks[i].source, chunks[i].heading, chunks[i].text) for i in order],
        note,
        unbuilt,
    )
