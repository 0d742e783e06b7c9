"""`rl-interview bank draft` against a scripted OpenAI-compatible server on 127.0.0.1: the draft is
validated, written as <id>.yaml.draft beside a copy of the note, and never loaded until renamed."""

from __future__ import annotations

import json

import yaml
from typer.testing import CliRunner

from evals.scripted_provider import text
from knowledge.bank import load_bank

NOTE = "# Reward hacking\n\n## What it is\n\nThe policy exploits flaws in the reward model.\n"


def drafted(bank) -> dict:
    """A well-formed draft: algo-10's rubric, as a model would return it."""
    q = bank["algo-10"].model_dump(mode="json")
    return {
        k: q[k]
        for k in (
            "topics",
            "difficulty",
            "prompt",
            "parts",
            "key_points",
            "misconceptions",
            "expert_probes",
            "model_answer",
        )
    }


def draft(tmp_path, server, *extra):
    from tui.cli import app

    note = tmp_path / "note.md"
    note.write_text(NOTE, encoding="utf-8")
    return CliRunner().invoke(
        app,
        [
            "bank",
            "draft",
            "my-hacking",
            "--from",
            str(note),
            "--dir",
            str(tmp_path / "mine"),
            "--model",
            "openai/scripted",
            "--api-base",
            server.url,
            *extra,
        ],
    )


def test_a_valid_draft_is_written_for_review_and_not_loaded(tmp_path, server, bank, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    server.script(assess=[text("```json\n" + json.dumps(drafted(bank)) + "\n```")])
    result = draft(tmp_path, server)
    assert result.exit_code == 0, result.output
    folder = tmp_path / "mine"
    written = (folder / "my-hacking.yaml.draft").read_text(encoding="utf-8")
    assert written.startswith("# DRAFT written by openai/scripted")
    data = yaml.safe_load(written)
    assert data["id"] == "my-hacking" and data["notes"] == ["my-hacking"]
    assert "Question: my-hacking" in (folder / "my-hacking.md").read_text(encoding="utf-8")
    assert "my-hacking" not in load_bank(extra=[folder]), "a draft is never used before review"
    (folder / "my-hacking.yaml.draft").rename(folder / "my-hacking.yaml")
    assert load_bank(extra=[folder])["my-hacking"].yours
    assert NOTE.split("\n\n")[2] in server.requests[0]["messages"][0]["content"]


def test_an_invalid_draft_writes_nothing_and_says_why(tmp_path, server, bank, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    broken = drafted(bank)
    broken["key_points"] = broken["key_points"][:2]
    server.script(assess=[text(json.dumps(broken))])
    result = draft(tmp_path, server)
    assert result.exit_code == 1
    assert "not a valid question" in result.output and "key_points" in result.output
    assert not (tmp_path / "mine").exists()


def test_without_a_model_draft_says_what_it_needs(tmp_path):
    from tui.cli import app

    note = tmp_path / "note.md"
    note.write_text(NOTE, encoding="utf-8")
    result = CliRunner().invoke(app, ["bank", "draft", "my-x", "--from", str(note), "--dir", str(tmp_path)])
    assert result.exit_code == 1 and "needs a model" in result.output
