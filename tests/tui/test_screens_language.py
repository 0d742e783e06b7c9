"""History, Drill and the library speak the language chosen on Home (a user trial found them in
English in a Chinese session): their titles, column headings, the words in their cells, the
topics by name, their footers and a question's page. An English app keeps its English words (the
snapshots hold them).

The expected words are written here, not read from prompts/labels.yaml: a wrong label fails."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from learner_records import attempt
from textual.widgets import Markdown, Tab
from tui_helpers import SIZE, footer, make_sessions, screen_text, settle, wait_loaded, wait_until

from agent.learner.profile import Profile, profile_path
from tui.screens.drill import DrillScreen
from tui.screens.history import HistoryScreen
from tui.screens.library import LibraryScreen
from tui.screens.question import QuestionScreen

APP_KEYS = ("^q 退出", "^p 命令")
"""The app's own keys, in every footer."""


def english_left(shown: str, words: tuple[str, ...]) -> list[str]:
    return [word for word in words if word in shown]


async def open_from_home(pilot, key: str, screen: type) -> str:
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, screen), screen.__name__)
    await settle(pilot)
    return screen_text(pilot.app)


def assert_keys_in_chinese(app, keys: tuple[str, ...], english: tuple[str, ...]) -> None:
    """The footer names the screen's keys, and the app's, in Chinese; the palette says them so too."""
    shown = footer(app)
    for key in (*keys, *APP_KEYS):
        assert key in shown, (key, shown)
    assert english_left(shown, (*english, "Back", "Quit", "palette")) == [], shown
    palette = {command.title for command in app.get_system_commands(app.screen)}
    assert english_left(" ".join(palette), english) == [], palette


async def test_history_in_chinese(make_app):
    app = make_app(lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await make_sessions(app.services)  # tui-0001 finished, tui-0002 unfinished
        shown = await open_from_home(pilot, "h", HistoryScreen)
        assert_keys_in_chinese(app, ("⏎ 打开 / 继续", "esc 返回"), ("Open / resume",))
    assert "以往的面试" in shown
    for heading in ("日期", "类型", "语言", "状态", "题数", "深度"):
        assert heading in shown, heading
    finished = next(line.split() for line in shown.splitlines() if line.strip().startswith("tui-0001"))
    assert finished[3:6] == ["面试", "en", "已完成"], "kind, language (as its code) and status"
    assert "未完成" in shown
    left = english_left(shown, ("Past sessions", "session", "date", "kind", "status", "finished", "active"))
    assert not left, shown


async def test_the_drill_screen_in_chinese(make_app, settings, bank, monkeypatch):
    answered = datetime(2026, 12, 1, tzinfo=UTC)
    Profile(profile_path(settings)).record([attempt("algo-07", answered, 0, session="earlier")], bank)
    monkeypatch.setenv("RL_INTERVIEW_NOW", (answered + timedelta(days=3)).isoformat())
    app = make_app(lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        shown = await open_from_home(pilot, "d", DrillScreen)
        assert isinstance(app.screen, DrillScreen)
        assert_keys_in_chinese(app, ("⏎ 从这里开始练", "esc 返回"), ("Start drill here",))
    for chinese in ("专练", "按 Enter 从选中的题开始练 3 道", "题目", "原因", "开场", "上次深度", "主题"):
        assert chinese in shown, chinese
    assert "到期" in shown and "新题" in shown, "why each question is drilled"
    assert "掌握度" in shown and "趋势" in shown and "信赖域" in shown and "GRPO 变体" in shown
    drill_words = ("Drill", "question(s)", "why", "opens with", "last depth", "topics", "weak topic", "Mastery")
    left = english_left(shown, (*drill_words, "Trend", "trust-region", "grpo-variants"))
    assert not left, shown


async def test_the_library_in_chinese(make_app):
    app = make_app(lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        shown = await open_from_home(pilot, "l", LibraryScreen)
        assert_keys_in_chinese(app, ("/ 筛选 / 搜索", "esc 返回"), ("Filter / search", "Drill this now"))
    for chinese in ("输入文字筛选题目", "题号", "深度", "到期", "方向", "主题", "算法"):
        assert chinese in shown, chinese
    left = english_left(shown, ("type to filter", "section", "topics", "algorithm", "infrastructure"))
    assert not left, shown


async def test_a_question_of_the_library_in_chinese(make_app, bank):
    """Its tabs, the headings and words around the bank's Chinese texts, and its footer."""
    app = make_app(lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await open_from_home(pilot, "l", LibraryScreen)
        await pilot.press(*"clip", "down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question")
        await settle(pilot)
        shown = screen_text(app)
        rubric = app.screen.query_one("#rubric-text", Markdown).source
        tabs = [str(tab.label) for tab in app.screen.query(Tab)]
        assert_keys_in_chinese(
            app, ("r 评分要点", "n 笔记", "d 现在练这道", "esc 返回"), ("Rubric", "Note", "Drill this now")
        )
    assert tabs == ["评分要点", "笔记"]
    assert "题库自带 · 算法 · PPO、信赖域、GRPO 变体 · 难度 2 · 按语义和关键短语评分" in rubric
    for heading in ("## 题目各部分", "### 第 1 层：记得概念", "## 各层级的要点", "## 误解", "## 参考答案"):
        assert heading in rubric, heading
    assert "> 也可以这样问（1）：" in rubric and "*（所属部分：PPO 的 clipping 如何工作）*" in rubric
    assert f"- **错误：** {bank['algo-07'].misconceptions[0].statement_zh}" in rubric
    assert "**更正：**" in rubric
    english = (
        "our question",
        "difficulty",
        "Parts",
        "Key points",
        "Level",
        "part:",
        "Wrong",
        "Correction",
        "Model answer",
    )
    assert english_left(rubric + shown, english) == [], rubric
