"""The bench's own arithmetic and plumbing; the figures themselves come from `rl-interview bench`."""

import json
import sys

import pytest
from typer.testing import CliRunner

from agent.text import size
from evals.bench import BUCKETS, QUICK, grow_answer, length_samples, spread
from evals.bench_process import BenchError, bench_env, run_process
from evals.bench_report import ratio, summary, targets


def words(n: int, word: str = "clip") -> str:
    return " ".join([word] * n)


def test_summary_takes_nearest_rank_percentiles_of_unsorted_values():
    assert summary([5.0, 1.0, 4.0, 2.0, 3.0], 1) == {"p50": 3.0, "p95": 5.0, "n": 5}
    assert summary([0.123456], 3) == {"p50": 0.123, "p95": 0.123, "n": 1}
    assert summary([], 1) == {"p50": None, "p95": None, "n": 0}


def test_ratio_is_ours_over_the_baseline_and_undefined_without_one():
    assert ratio(10.0, 4.0) == 2.5
    assert ratio(1.0, 3.0) == 0.33
    assert ratio(1.0, 0.0) is None
    assert ratio(None, 3.0) is None
    assert ratio(2.0, None) is None


@pytest.mark.parametrize(
    ("n", "low", "high", "kept"),
    [
        (1, 0, 100, True),
        (100, 0, 100, True),
        (101, 0, 100, False),
        (100, 100, 300, False),
        (300, 100, 300, True),
        (301, 100, 300, False),
        (1000, 300, 1000, True),
        (1001, 300, 1000, False),
    ],
)
def test_bucket_edges_are_inclusive_above(n, low, high, kept):
    assert (grow_answer([words(n)], low, high) == words(n)) is kept


def test_a_piece_that_fits_the_bucket_is_kept_as_it_is():
    chinese = "强化学习" * 100  # 400 characters count as 200 words
    assert grow_answer([chinese, words(10)], 100, 300) == chinese


def test_pieces_are_joined_whole_until_past_the_middle_of_the_bucket():
    answer = grow_answer([words(60, "ratio"), words(50, "kl")], 100, 300)
    # 60, +50 = 110, +60 = 170, +50 = 220: the first past 200
    assert size(answer) == 220
    assert answer.split("\n\n") == [words(60, "ratio"), words(50, "kl"), words(60, "ratio"), words(50, "kl")]


def test_a_piece_too_long_for_the_bucket_is_left_out_and_none_is_made_of_nothing():
    answer = grow_answer([words(400), words(90, "kl")], 100, 300)
    assert "clip" not in answer and 200 < size(answer) <= 300
    assert grow_answer([words(400)], 100, 300) is None


def test_length_samples_fill_each_bucket_from_one_question_at_a_time():
    answers = [
        ("algo-01", words(40, "ppo")),
        ("algo-01", words(70, "clip")),
        ("infra-03", words(80, "kv")),
        ("infra-03", words(30, "cache")),
        ("infra-03", words(150, "page")),
    ]
    samples = length_samples(answers, per_bucket=50)
    assert set(samples) == {name for name, _, _ in BUCKETS}
    for name, low, high in BUCKETS:
        assert samples[name], name
        for question_id, answer in samples[name]:
            assert low < size(answer) <= high
            own = {a for q, a in answers if q == question_id}
            assert set(answer.split("\n\n")) <= own
    # the shortest bucket holds only real answers, never pieces put together
    assert all("\n\n" not in answer for _, answer in samples["<=100"])
    assert len(samples["<=100"]) == 4


def test_spread_picks_evenly_and_keeps_short_lists_whole():
    assert spread(list(range(10)), 3) == [0, 3, 6]
    assert spread([1, 2], 5) == [1, 2]


def figures(p95: float, over_floor: float | None = None) -> dict:
    return {"p50": p95 / 2, "p95": p95, "n": 3, "over_floor": over_floor}


def test_targets_flag_exactly_the_figures_over_their_limit():
    report = {
        "turn_latency_ms": {"<=100": figures(599.0, 1.2), "<=300": figures(601.0, 1.4), "<=1000": figures(1499.0, 1.6)},
        "first_question_s": {"above_floor_s": {"plain": 0.4, "tui": 1.2}},
        "retrieval_ms": figures(50.0),
        "kb_rebuild_s": {"p50": 2.5, "p95": 3.0, "n": 3},
        "peak_rss_mb": {"interview": 300.0},
        "setup": {"seconds": 170.0},
    }
    checked = targets(report)
    missed = {t["target"] for t in checked if not t["ok"]}
    assert missed == {
        "turn p95, answers <=300 words",
        "turn p95 / embedding floor p95, answers <=1000 words",
        "first question above the import floor (tui)",
        "no-change rebuild",
    }
    assert len(checked) == 12
    assert json.loads(json.dumps(checked)) == checked


def test_bench_env_leaves_out_the_users_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("RL_INTERVIEW_LLM__MODEL", "openai/some-model")
    monkeypatch.setenv("RL_INTERVIEW_CHROMA_URL", "http://127.0.0.1:9")
    env = bench_env(tmp_path, "hash")
    assert "RL_INTERVIEW_LLM__MODEL" not in env and "RL_INTERVIEW_CHROMA_URL" not in env
    assert env["RL_INTERVIEW_HOME"] == str(tmp_path)
    assert env["RL_INTERVIEW_KNOWLEDGE__EMBEDDING"] == "hash"
    assert env["RL_INTERVIEW_CONFIG"].startswith(str(tmp_path))


def test_run_process_feeds_stdin_and_reports_first_line_exit_and_memory(tmp_path):
    # Memory is sampled while the child runs (every 20 ms): a child that exits within milliseconds
    # can end before any sample after its start-up, which a loaded machine once showed (0.17 MB).
    # The child lives a second, as the app's processes measured this way do.
    script = "import sys, time; print('first', flush=True); time.sleep(1); print(sys.stdin.read().upper())"
    run = run_process([sys.executable, "-c", script], bench_env(tmp_path, "hash"), stdin="answer")
    assert run.stdout == "first\nANSWER\n"
    assert 0 < run.first_line_s <= run.exit_s
    assert run.peak_rss_mb > 1


def test_a_failing_command_is_one_error_with_its_last_words(tmp_path):
    script = "import sys; sys.stderr.write('the store is locked\\n'); sys.exit(4)"
    with pytest.raises(BenchError, match=r"exited with status 4: the store is locked"):
        run_process([sys.executable, "-c", script], bench_env(tmp_path, "hash"))


@pytest.mark.slow
def test_the_quick_bench_prints_every_figure_as_one_json_object():
    from tui.cli import app

    result = CliRunner().invoke(app, ["bench", "--quick", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report) == {
        "first_question_s",
        "turn_latency_ms",
        "retrieval_ms",
        "kb_build_s",
        "kb_rebuild_s",
        "peak_rss_mb",
        "eval_s",
        "setup",
        "targets",
    }
    first = report["first_question_s"]
    for series in ("plain", "tui", "import_floor"):
        assert first[series]["n"] == QUICK.process_runs and first[series]["p50"] > 0
    assert set(report["turn_latency_ms"]) == {"<=100", "<=300", "<=1000"}
    for name, low, high in BUCKETS:
        turn = report["turn_latency_ms"][name]
        assert turn["n"] == QUICK.turn_samples and turn["p50"] > 0 and turn["baseline"]["p50"] > 0
        assert low < turn["words_p50"] <= high
    assert report["retrieval_ms"]["n"] == QUICK.retrieval_queries and report["retrieval_ms"]["baseline"]["p95"] > 0
    assert report["kb_build_s"] > 0 and report["kb_rebuild_s"]["p50"] > 0 and report["eval_s"]["p50"] > 0
    assert report["peak_rss_mb"]["interview"] > report["peak_rss_mb"]["import_floor"] > 0
    assert report["setup"]["embedding"] == "hash" and report["setup"]["chunks"] > 0
    assert all(isinstance(t["ok"], bool) for t in report["targets"])
