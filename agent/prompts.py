"""Prompts and phrasings live as files in `prompts/`; this loads them by name."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml


@cache
def load_text(name: str) -> str:
    return resources.files("prompts").joinpath(name).read_text(encoding="utf-8")


@cache
def load_yaml(name: str) -> Any:
    return yaml.safe_load(load_text(name))
