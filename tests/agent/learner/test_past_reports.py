"""Past reports' topics: averaged per topic across sessions, and a damaged report hides nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.learner.past_reports import topic_averages


def _report(folder: Path, name: str, topics: dict[str, float]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps({"session": name, "topics": topics}), encoding="utf-8")


def test_each_topic_is_averaged_over_the_reports_that_name_it(tmp_path: Path) -> None:
    _report(tmp_path, "s1", {"ppo": 1.0, "kl": 3.0})
    _report(tmp_path, "s2", {"ppo": 4.0})
    assert topic_averages(tmp_path) == pytest.approx({"ppo": 2.5, "kl": 3.0})


@pytest.mark.parametrize("damaged", ["{not json", "[1, 2]", "\udcff"])
def test_a_damaged_report_is_skipped_and_the_others_still_count(tmp_path: Path, damaged: str) -> None:
    _report(tmp_path, "good", {"ppo": 2.0})
    (tmp_path / "bad.json").write_bytes(damaged.encode("utf-8", "surrogateescape"))
    assert topic_averages(tmp_path) == {"ppo": 2.0}


def test_no_reports_folder_yet_means_no_topics(tmp_path: Path) -> None:
    assert topic_averages(tmp_path / "reports") == {}
