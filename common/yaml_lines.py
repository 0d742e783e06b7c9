"""A safe YAML loader that remembers the line of every mapping key, for error messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml


class LineDict(dict):
    """A dict that knows the 1-based line of each of its keys (`key_lines`) and of itself."""

    key_lines: dict[Any, int]
    line: int


# libyaml's parser gives the same nodes and lines about 20 times faster than the pure-Python one:
# loading the bank drops from about 1 s to 0.05 s of every interviewer's start.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# mypy cannot take a base class chosen at runtime (and yaml ships no stubs here): the base is a SafeLoader.
class LineLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> LineDict:
        mapping = LineDict(super().construct_mapping(node, deep=True))
        mapping.key_lines = {self.construct_object(key, deep=True): key.start_mark.line + 1 for key, _ in node.value}
        mapping.line = node.start_mark.line + 1
        return mapping


LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, LineLoader.construct_mapping)


def line_of(data: Any, loc: Sequence[str | int]) -> int | None:
    """The line of the deepest key in `loc` that exists in the loaded data."""
    line = getattr(data, "line", None)
    node = data
    for part in loc:
        if isinstance(node, LineDict) and part in node:
            line = node.key_lines.get(part, line)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            line = getattr(node, "line", line)
        else:
            break
    return line
