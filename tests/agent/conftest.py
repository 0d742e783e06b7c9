"""Fixtures for the agent tests: an isolated home, the shipped question bank, a graph driver."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def agent_home(isolated_env: Path) -> Path:
    """The test's home (tests/conftest.py isolates every test): tmp_path itself."""
    return isolated_env


@pytest.fixture(scope="session")
def bank():
    from agent_helpers import cached_bank

    return cached_bank()


@pytest.fixture(scope="session")
def notes_retriever():
    from agent.interview.retrieval import NotesRetriever

    return NotesRetriever()


@pytest.fixture
def graph_driver(bank, notes_retriever):
    """Make a driver for the uncompiled graph, compiled with an in-memory checkpointer."""
    from agent_helpers import GraphDriver

    def make(plan=("algo-07", "infra-10"), lang="en", max_follow_ups=3, thread="t"):
        return GraphDriver(bank, notes_retriever, list(plan), lang=lang, max_follow_ups=max_follow_ups, thread=thread)

    return make
