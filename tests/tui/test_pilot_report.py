"""The end of a session driven with Textual's Pilot: the report, its exports, and Home's summary.

The interviewer is the real one (offline brain, LangGraph, SQLite checkpoints under tmp_path);
expected texts come from the question bank, never from the code under test.
"""

from __future__ import annotations

import json

from textual.widgets import Static
from tui_helpers import (
    CLIP_ANSWER,
    SIZE,
    AgentEvents,
    answer,
    close_review_to_report,
    finish_to_report,
    footer,
    report_rows,
    screen_names,
    screen_text,
    settle,
    skip_to_review,
    start,
)

from tui.screens.home import HomeScreen


async def test_finishing_every_question_shows_the_report_and_exports_it(make_app, bank, home):
    hook = AgentEvents()
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await finish_to_report(pilot)
        await settle(pilot)
        report = app.screen
        depth = hook.last("assessment").depth
        assert report.session_id == "tui-0001"
        assert app.services.index.get("tui-0001").status == "finished"
        assert report_rows(app) == [["1", "algo-07", f"{depth}/4"]]
        title = str(report.query_one("#report-title", Static).render())
        assert title == f"Interview report tui-0001\nStatus: finished · Average depth: {depth:.2f} / 4"
        bars = str(report.query_one("#bars", Static).render())
        for topic in bank["algo-07"].topics:
            assert topic in bars

        await pilot.press("m")
        await pilot.press("j")
        await settle(pilot)
        markdown = (home / "reports" / "tui-0001.md").read_text(encoding="utf-8")
        assert markdown.startswith("# Interview report tui-0001")
        assert "Status: finished" in markdown
        assert f"| 1 | algo-07 | {depth} |" in markdown
        data = json.loads((home / "reports" / "tui-0001.json").read_text(encoding="utf-8"))
        assert data["session_id"] == "tui-0001" and data["status"] == "finished"
        assert [q["question"] for q in data["questions"]] == ["algo-07"]
        assert data["transcript"][0]["answer"] == CLIP_ANSWER

        # Escape goes back Home, which now summarises the exported report's topics
        await pilot.press("escape")
        await settle(pilot)
        assert screen_names(app) == ["Screen", "HomeScreen"]
        topics = str(app.screen.query_one("#topics", Static).render())
        assert "No sessions yet" not in topics
        assert "ppo" in topics


async def test_home_summarises_a_finished_session_without_a_manual_export(make_app):
    """Home promises "your strong and weak topics will show here" once there are sessions."""
    app = make_app(["algo-07"])
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await finish_to_report(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        topics = str(app.screen.query_one("#topics", Static).render())
        assert "No sessions yet" not in topics, "a finished session is not reflected on Home"


async def test_markdown_export_of_a_chinese_session_is_in_chinese(make_app, bank, home):
    """`rl-interview report` writes the session's language; the TUI's export must match it."""
    app = make_app(["infra-01"], lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await finish_to_report(pilot)
        await pilot.press("m")
        await settle(pilot)
    markdown = (home / "reports" / "tui-0001.md").read_text(encoding="utf-8")
    assert bank["infra-01"].prompt.zh in markdown, "the export shows the English prompt of a Chinese session"
    assert "深度" in markdown and "not yet" not in markdown and "Depth" not in markdown, "the reason line is English"
    # infra-01's topics (memory, parallelism, rollout) were listed by their English ids
    assert "- 显存：" in markdown and "- 并行：" in markdown and "- memory" not in markdown
    # "…不等）。 (第 1 层)": the level (and what to read) in full-width brackets, with no space before them
    assert "。（第 1 层）" in markdown and "(第" not in markdown and " （第" not in markdown
    assert "。（阅读：" in markdown and "(阅读" not in markdown


async def test_the_report_screen_of_a_chinese_session_is_in_chinese(make_app, bank):
    """The screen says what the exported Markdown says: its headings, and the bank's Chinese statements;
    its footer, and the review's before it, name their keys in Chinese too."""
    app = make_app(["infra-01"], lang="zh")
    async with app.run_test(size=(120, 60)) as pilot:
        await start(pilot)
        await skip_to_review(pilot)
        await settle(pilot)
        review_keys = footer(app)
        await close_review_to_report(pilot)
        await settle(pilot)
        shown = screen_text(app)
    assert "esc 继续" in review_keys and "^q 退出" in review_keys and "Continue" not in review_keys, review_keys
    keys = shown.splitlines()[-1]
    assert "m 导出 Markdown  j 导出 JSON  esc 首页  ^q 退出" in keys, keys
    first_gap = bank["infra-01"].key_points[0]
    for chinese in (
        "面试报告 tui-0001",
        "状态：已完成",
        "题目",
        "深度",
        "依据",
        "各主题",
        "显存",
        "并行",
        "接下来该学的",
    ):
        assert chinese in shown, f"{chinese!r} is not on the report screen"
    assert f"infra-01: {first_gap.statement_zh[:20]}" in shown
    assert first_gap.id not in shown, "a key point is named in words, not by its id"
    assert "阅读：" in shown
    for english in (
        "Report",
        "Status",
        "question",
        "reason",
        "Topics",
        "Study next",
        "read:",
        "memory",
        "parallelism",
        "Export",
        "Home",
        first_gap.statement[:20],
    ):
        assert english not in shown, f"{english!r} is left in English"


async def test_each_key_point_to_study_names_its_own_sections_as_progress_does(make_app, bank, notes_retriever):
    """The question's references gave every key point the same two sections; `progress` looks each one up."""
    from agent.learner.progress import next_points

    app = make_app(["algo-08"])
    async with app.run_test(size=(120, 60)) as pilot:
        await start(pilot)
        await finish_to_report(pilot)
        await settle(pilot)
        reads = {s.key_point: s.read for s in app.screen.report.study_next}
        shown = screen_text(app)
        history = app.services.profile.history()
    assert list(reads) == ["reference-anchor", "kl-in-loss"]
    assert reads["kl-in-loss"][0] == "notes/algo-08.md › How GRPO implements it"
    assert "notes/algo-08.md › How GRPO implements it" not in reads["reference-anchor"]
    assert "read: notes/algo-08.md › How GRPO implements it; " in shown
    progress = {p.key_point: p.read for p in next_points(history, bank, notes_retriever)}
    assert {kp: progress[kp] for kp in reads} == reads


async def test_a_long_reason_wraps_within_a_narrow_screen(make_app):
    """At 100 columns the reason ran off the right edge, cut with nothing to say so."""
    app = make_app(["algo-07"])
    async with app.run_test(size=(100, 60)) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await finish_to_report(pilot)
        await settle(pilot)
        reason = app.screen.report.questions[0].reason
        shown = screen_text(app)
    assert len(reason) > 100
    assert " ".join(reason.split()) in " ".join(shown.split())
