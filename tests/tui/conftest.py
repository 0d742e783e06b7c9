"""Shared fixtures for the TUI tests: the test's home and settings (isolated by tests/conftest.py),
our notes as the retriever (no Chroma store), a clock that never moves and predictable session ids."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from agent.interview.retrieval import NotesRetriever
from agent.planning import PlanRequest
from common.settings import Settings, load_settings
from knowledge.bank import Bank, load_bank

FIXED_TIME = 1_000.0
"""What the app's clock always says: the side panel's timer stays at 00:00."""


@pytest.fixture
def home(isolated_env: Path) -> Path:
    """The test's home (tests/conftest.py isolates every test): tmp_path itself."""
    return isolated_env


@pytest.fixture
def settings(home: Path) -> Settings:
    loaded = load_settings()
    assert loaded.home == home, "the tests must never write to the real home"
    return loaded


@pytest.fixture(scope="session")
def bank() -> Bank:
    return load_bank()


@pytest.fixture
def clock() -> Callable[[], float]:
    return lambda: FIXED_TIME


@pytest.fixture
def session_ids() -> Callable[[], str]:
    """tui-0001, tui-0002, ... in the order the app starts sessions."""
    counter = itertools.count(1)
    return lambda: f"tui-{next(counter):04d}"


@pytest.fixture(scope="session")
def notes_retriever() -> NotesRetriever:
    """Our notes, chunked once for the whole run (the retriever only caches, it never changes)."""
    return NotesRetriever()


@pytest.fixture
def make_app(settings: Settings, clock, session_ids, bank: Bank, notes_retriever: NotesRetriever):
    """InterviewApp with the fixed clock and ids and our notes as references; `ids` is the plan.

    The bank is parsed once per run rather than on each app start (35 YAML files: about 0.3 s a
    test; its loading is tested in tests/knowledge), unless the settings add the user's questions."""
    from tui.app import InterviewApp

    def make(
        ids: Iterable[str] = ("algo-07", "infra-01"), *, request: PlanRequest | None = None, lang: str = "en", **kwargs
    ):
        kwargs.setdefault("bank", None if settings.bank_paths else bank)
        return InterviewApp(
            settings,
            request=request or PlanRequest(ids=list(ids)),
            lang=lang,
            clock=clock,
            session_ids=session_ids,
            retriever=notes_retriever,
            **kwargs,
        )

    return make
