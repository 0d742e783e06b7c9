"""Fixtures for the agent tests: an isolated home, the shipped question bank, a graph driver."""

from __future__ import annotations

from pathlib import Path

import pytest
from isolation import isolate


@pytest.fixture(autouse=True)
def agent_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every agent test writes only under tmp_path, reads no config file and uses the hash embedding."""
    isolate(monkeypatch, tmp_path, tmp_path / "none.toml")
    return tmp_path


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
