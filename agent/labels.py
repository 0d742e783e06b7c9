"""The fixed words around a session's content (headings, field names, statuses, the interview
room's panel and notes) in the session's language, from `prompts/labels.yaml`. The content itself
(the bank's statements, the candidate's words) is shown as it is."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from agent.prompts import load_yaml


class Labels:
    def __init__(self, lang: str) -> None:
        table = load_yaml("labels.yaml")
        self._words: dict[str, Any] = table.get(lang) or table["en"]  # an unknown language reads English

    def __call__(self, key: str, **values: Any) -> str:
        return str(self._words[key]).format(**values)

    def listing(self, key: str) -> str:
        """A label that opens a list ("Shown:", "答到的：")."""
        return self(key) + self("colon")

    def columns(self, key: str) -> list[str]:
        """The headings of a table: the report's questions ("table_columns"), History's sessions..."""
        return [str(c) for c in self._words[key]]

    def depth_name(self, depth: int) -> str:
        return str(self._words["depth_names"][depth])

    def name(self, table: str, key: str) -> str:
        """A word from one of the tables (statuses, speakers, sections, actions); a key the table
        lacks is shown as it is."""
        return str(self._words[table].get(key, key))

    def status(self, status: str) -> str:
        return self.name("statuses", status)

    def part_line(self, mark: str, part: str, shown: int, of: int, hinted: bool) -> str:
        line = self("part_line", mark=mark, part=part, shown=shown, of=of, plural="s" * (of != 1))
        return line + (self("with_a_hint") if hinted else "")

    def counted(self, key: str, count: int) -> str:
        """A count in words ("1 question", "2 questions", "2 道题")."""
        return self(key, count=count, plural="s" * (count != 1))

    def table(self, name: str) -> dict[str, str]:
        """One of the tables of words (statuses, speakers, Home's keys), whole."""
        return {key: str(word) for key, word in self._words[name].items()}

    def aside(self, text: str) -> str:
        """A remark after a sentence, brackets and spacing included: " (level 2)", "（第 2 层）" (a
        Chinese sentence ends in 。, which wants no space after it)."""
        return self("aside", text=text)

    def level(self, level: int, hinted: bool = False) -> str:
        """A key point's level, as an aside after its statement."""
        return self.aside(self("level_with_hint" if hinted else "level", level=level))

    def topic(self, topic: str) -> str:
        """A topic as this language names it (the bank's id where the table lacks it)."""
        return self.name("topic_names", topic)

    def topics(self, topics: Iterable[str]) -> str:
        """Topics named and listed: "ppo, kl", "PPO、KL 散度"."""
        return self("list_separator").join(map(self.topic, topics))


@cache
def labels(lang: str) -> Labels:
    return Labels(lang)
