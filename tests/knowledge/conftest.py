"""Fixtures for the knowledge package: an isolated notes folder, a valid bank entry, a CLI runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner


@pytest.fixture(autouse=True)
def package_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Stand-in for knowledge/notes/: the real notes are being written concurrently, and a build
    in a test must only see the documents the test wrote."""
    import knowledge.documents

    notes = tmp_path / "package-notes"
    notes.mkdir()
    monkeypatch.setattr(knowledge.documents, "NOTES_DIR", notes)
    return notes


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def app():
    from tui.cli import app

    return app


@pytest.fixture
def hash_settings():
    from common.settings import KnowledgeSettings, Settings

    return Settings(knowledge=KnowledgeSettings(embedding="hash"))


def _key_point(point_id: str, level: int) -> dict[str, Any]:
    return {
        "id": point_id,
        "level": level,
        "statement": f"Statement of {point_id} at depth {level}.",
        "cues": {"en": [f"{point_id} cue"], "zh": [f"{point_id} 线索"]},
        "probe": {"en": f"Can you say more about {point_id}?", "zh": f"能再讲讲 {point_id} 吗？"},
    }


@pytest.fixture
def valid_entry() -> dict[str, Any]:
    """A bank entry that satisfies every rule: five key points spanning levels 1-4."""
    return {
        "id": "algo-07",
        "section": "algorithm",
        "topics": ["ppo", "trust-region"],
        "difficulty": 2,
        "prompt": {
            "en": "How does PPO clipping work, and why take the minimum?",
            "zh": "PPO 的裁剪是怎么工作的？为什么取最小值？",
        },
        "key_points": [
            _key_point("ratio-clipped", 1),
            _key_point("min-is-pessimistic", 2),
            _key_point("no-gradient-outside", 2),
            _key_point("trust-region-link", 3),
            _key_point("cispo-difference", 4),
        ],
        "misconceptions": [
            {
                "id": "clip-bounds-kl",
                "statement": "Clipping bounds the KL divergence exactly.",
                "cues": {"en": ["bounds the kl"], "zh": ["限制了 kl"]},
                "correction": "Clipping only removes the incentive to move further; the ratio can still leave the range.",
            }
        ],
        "expert_probes": [{"en": "How does CISPO differ?", "zh": "CISPO 有什么不同？"}],
        "model_answer": "PPO clips the probability ratio to [1-eps, 1+eps] and takes the minimum ...",
        "notes": ["algo-07"],
    }
