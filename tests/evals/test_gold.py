"""Gold files: the shipped set is well formed, and a malformed file is named precisely."""

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from evals.gold import GOLD_DIR, load_gold
from knowledge.bank import load_bank
from tui.cli import app

QUESTIONS = set(load_bank())


def _write(folder: Path, name: str, data) -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def _transcript(tid: str, depth=2) -> dict:
    return {"id": tid, "turns": [{"question": "algo-07", "answer": "PPO clips the ratio.", "gold": {"depth": depth}}]}


def test_shipped_gold_set_meets_its_specification():
    transcripts, problems = load_gold([GOLD_DIR], QUESTIONS)
    assert problems == []
    turns = [t for tr in transcripts for t in tr.turns]
    assert len(transcripts) >= 40 and len(turns) >= 250
    per_question = {q: sum(t.question == q for t in turns) for q in QUESTIONS}
    assert min(per_question.values()) >= 5
    # Every level is well represented in the written transcripts; the blind-written answers
    # (with a `category`) are as their writers made them, and none of them reached expert depth.
    written = [turn for t in transcripts if not getattr(t, "category", None) for turn in t.turns]
    for level in range(5):
        assert sum(t.gold.depth == level for t in written) >= 0.15 * len(written)
    cjk = sum(any("\u4e00" <= ch <= "\u9fff" for ch in t.answer) for t in turns)
    assert cjk >= len(turns) / 3
    heldout = [tr for tr in transcripts if tr.split == "heldout"]
    assert sum(len(tr.turns) for tr in heldout) >= len(turns) / 5
    assert any(len(tr.turns) > 1 and any(t.asked for t in tr.turns) for tr in transcripts)


def test_malformed_file_names_file_and_turn_and_others_still_load(tmp_path):
    _write(tmp_path, "good.yaml", _transcript("good"))
    bad = _transcript("bad")
    bad["turns"].append({"question": "algo-07", "answer": "x", "gold": {"depth": 7}})
    _write(tmp_path, "bad.yaml", bad)
    transcripts, problems = load_gold([tmp_path], QUESTIONS)
    assert [t.id for t in transcripts] == ["good"]
    assert len(problems) == 1 and "bad.yaml" in problems[0] and "turn 1" in problems[0] and "depth" in problems[0]


def test_unknown_question_and_yaml_syntax_errors_are_named(tmp_path):
    _write(
        tmp_path, "unknown.yaml", {"id": "u", "turns": [{"question": "algo-99", "answer": "a", "gold": {"depth": 1}}]}
    )
    (tmp_path / "broken.yaml").write_text("id: x\nturns: [\n  - question: algo-01\n", encoding="utf-8")
    _, problems = load_gold([tmp_path], QUESTIONS)
    text = "\n".join(problems)
    assert "unknown.yaml" in text and "algo-99" in text
    assert "broken.yaml:" in text and "YAML syntax error" in text


def test_eval_command_json_has_the_documented_keys_and_exit_3_on_a_bad_file(tmp_path):
    _write(
        tmp_path,
        "one.yaml",
        {
            "id": "one",
            "turns": [
                {"question": "algo-07", "answer": "", "gold": {"depth": 0, "next": ["hint", "follow_up"]}},
                {
                    "question": "algo-07",
                    "asked": "Why the min?",
                    "answer": "不知道",
                    "gold": {"depth": 0, "next": "move_on"},
                },
            ],
        },
    )
    (tmp_path / "zbad.yaml").write_text("id: z\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", str(tmp_path), "--json", "--out", str(tmp_path / "out")])
    assert result.exit_code == 3
    report = json.loads(result.stdout.strip().splitlines()[-1])
    for key in ("turns", "qwk", "exact", "adjacent", "next_action_accuracy", "probe_hit_rate", "baseline", "per_turn"):
        assert key in report
    assert set(report["baseline"]) >= {"qwk", "exact", "adjacent"}
    row = report["per_turn"][1]
    assert {"transcript", "index", "question", "gold_depth", "depth", "gold_next", "next", "follow_up"} <= set(row)
    assert row["index"] == 1 and row["depth"] == 0
    assert (tmp_path / "out" / "report.md").read_text(encoding="utf-8").startswith("# Interviewer evaluation")


def test_a_mixed_transcript_is_replayed_in_the_language_its_interviewer_speaks():
    from evals.gold import GoldTranscript
    from evals.replay import interviewer_language

    def transcript(language, *turns):
        rows = [
            {"question": "algo-08", "asked": asked, "answer": answer, "gold": {"depth": 1}} for asked, answer in turns
        ]
        return GoldTranscript.model_validate({"id": "t", "language": language, "turns": rows})

    zh_interviewer = transcript("mixed", (None, "GRPO 加 KL 是为了稳定"), ("KL 具体怎么算？", "用 k3 estimator"))
    assert interviewer_language(zh_interviewer) == "zh"
    en_interviewer = transcript("mixed", (None, "用 k3"), ("How is the KL computed?", "k3"), ("And why drop it?", "x"))
    assert interviewer_language(en_interviewer) == "en"
    # No interviewer line: the answers decide (mixed ones are a Chinese speaker's); a fixed language is kept whatever the lines say.
    assert interviewer_language(transcript("mixed", (None, "就是限制 ratio 在 1±ε 里"))) == "zh"
    assert interviewer_language(transcript("mixed", (None, "it clips the ratio to 1±ε"))) == "en"
    assert interviewer_language(transcript("en", ("KL 具体怎么算？", "k3"))) == "en"
