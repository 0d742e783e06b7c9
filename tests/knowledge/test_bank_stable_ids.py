"""Key point and misconception ids are stable: profiles and sessions name them.

The fixtures were made with main at b553a39, before the bank had sources and before its review: a
home (`legacy_home_b553a39.tar.xz`: sessions, checkpoints, profile) holding a finished six-question
interview (4162e8b21fa7, closed 2026-12-01) and a finished two-question drill (a19083049309,
2026-12-03) made by the plain CLI, and the ids every question had then (`bank_ids_b553a39.json`).
They are kept as they were made; do not regenerate them with newer code.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from isolation import child_env

from knowledge.bank import BANK_DIR, load_bank

DATA = Path(__file__).parent / "data"
LEGACY_HOME = DATA / "legacy_home_b553a39.tar.xz"
LEGACY_IDS = DATA / "bank_ids_b553a39.json"
INTERVIEW, DRILL = "4162e8b21fa7", "a19083049309"
LATER = "2026-12-05T00:00:00Z"


def test_every_former_id_is_still_an_id_or_an_alias():
    bank = load_bank()
    lost = []
    for qid, ids in json.loads(LEGACY_IDS.read_text()).items():
        question = bank[qid]
        current = {kp.id for kp in question.key_points} | {m.id for m in question.misconceptions}
        lost += [
            f"{qid}/{i}" for i in ids["key_points"] + ids["misconceptions"] if question.current_id(i) not in current
        ]
    assert lost == [], f"ids gone without an alias: {lost}"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    with tarfile.open(LEGACY_HOME) as archive:
        archive.extractall(home, filter="data")
    return home


def cli(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = child_env(home, RL_INTERVIEW_NOW=LATER)
    done = subprocess.run(
        [sys.executable, "-c", "from tui.cli import main; main()", *args],
        input=stdin.encode(),
        capture_output=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done


@pytest.mark.slow
def test_the_saved_sessions_list_and_report(home):
    sessions = {row["id"]: row for row in json.loads(cli(home, "sessions", "--json").stdout)}
    assert sessions[INTERVIEW]["status"] == sessions[DRILL]["status"] == "finished"

    report = json.loads(cli(home, "report", INTERVIEW, "--format", "json").stdout)
    depths = {q["question"]: q["depth"] for q in report["questions"]}
    assert depths == {"algo-07": 3, "infra-09": 1, "infra-12": 3, "infra-15": 1, "infra-16": 1, "algo-13": 1}
    algo07 = next(q for q in report["questions"] if q["question"] == "algo-07")
    assert "ppo-takes-max" in {m["misconception"] for m in algo07["misconceptions"]}
    markdown = cli(home, "report", DRILL, "--format", "md").stdout.decode()
    assert "algo-13" in markdown and "infra-09" in markdown


@pytest.mark.slow
def test_the_saved_profile_shows_progress_rebuilds_and_drills(home):
    before = json.loads(cli(home, "progress", "--json").stdout)
    assert {c["question"] for c in before["cards"]} == {
        "algo-07",
        "infra-09",
        "infra-12",
        "infra-15",
        "infra-16",
        "algo-13",
    }
    cli(home, "profile", "rebuild")
    after = json.loads(cli(home, "progress", "--json").stdout)
    # Rebuilt under today's rules: every one of these questions had a wrong claim stated on it, so
    # each counts Hard (2) at best; the saved profile had rated two of them 3.
    assert {c["question"]: c["last_depth"] for c in after["cards"]} == {
        c["question"]: min(c["last_depth"], 2) for c in before["cards"]
    }
    cli(home, "profile", "rebuild")
    assert json.loads(cli(home, "progress", "--json").stdout) == after, "a rebuild gives the same profile"

    events = [
        json.loads(line)
        for line in cli(home, "drill", "--plain", "--jsonl", "--count", "1", stdin="/end\n").stdout.splitlines()
    ]
    opening = events[0]
    assert opening["type"] == "ask"
    question = load_bank()[opening["question"]]
    assert opening["text"] in {kp.probe.en for kp in question.key_points}, (
        "a seen question opens on a missed key point's probe"
    )


def test_a_renamed_key_point_resolves_through_its_alias(tmp_path, home):
    """Rename a key point the saved profile has shown; the profile still rates, gaps and drills."""
    from agent.learner.drill import drill_queue
    from agent.learner.profile import Profile, mastery

    bank_dir = tmp_path / "bank"
    bank_dir.mkdir()
    for path in BANK_DIR.glob("*.yaml"):
        (bank_dir / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    entry = yaml.safe_load((bank_dir / "algo-07.yaml").read_text(encoding="utf-8"))
    point = next(kp for kp in entry["key_points"] if kp["id"] == "why-min-pessimistic")
    point["id"] = "min-is-a-pessimistic-bound"
    entry["aliases"] = {**entry.get("aliases", {}), "why-min-pessimistic": "min-is-a-pessimistic-bound"}
    (bank_dir / "algo-07.yaml").write_text(yaml.safe_dump(entry, allow_unicode=True, sort_keys=False), encoding="utf-8")
    bank = load_bank(bank_dir)
    question = bank["algo-07"]

    assert question.key_point("why-min-pessimistic").id == "min-is-a-pessimistic-bound"
    history = Profile(home / "profile.sqlite").history()
    assert "why-min-pessimistic" in history.known("algo-07"), "the fixture's profile names the former id"
    assert "min-is-a-pessimistic-bound" not in history.gap(question), "shown under its former id"
    now = datetime(2026, 12, 5, tzinfo=UTC)
    assert mastery(history, bank, now)
    assert {item.question for item in drill_queue(history, bank, now)} >= {"algo-07"}
