"""Home speaks the language chosen for the session (the flag, the config, or its own dropdown): its
title, hint, options, unfinished session, topics, footer and palette, with the same keys. Picking
another language on Home switches its words at once.

The expected words are written here, not read from prompts/labels.yaml: a wrong label fails."""

from __future__ import annotations

from tui_helpers import CLIP_ANSWER, SIZE, answer, footer, leave, screen_text, settle, start, wait_loaded, wait_until

from tui.screens.history import HistoryScreen
from tui.screens.home import HomeScreen
from tui.widgets.choice import Choice

ENGLISH = ("Press Enter", "questions", "both sections", "No sessions yet", "Start interview", "Resume", "History")
CHINESE = (
    "选好下面的设置，按 Enter 开始面试。",
    "6 道题",
    "全部方向",
    "还没有面试记录",
    "开始面试",
    "继续上次",
    "历史记录",
)


def english_left(app) -> list[str]:
    return [word for word in ENGLISH if word in screen_text(app)]


async def pick_language(pilot, option: int) -> None:
    """Tab to the language dropdown and pick its option `option` (0 English, 1 中文) by keyboard."""
    lang = pilot.app.screen.query_one("#lang", Choice)
    for _ in range(5):
        if pilot.app.focused is lang:
            break
        await pilot.press("tab")
    await pilot.press("space", *["down"] * option if option else ["up"], "enter")
    await settle(pilot)


async def test_home_is_in_chinese_for_a_chinese_session_and_its_keys_are_the_same(make_app):
    app = make_app(lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        shown = screen_text(app)
        assert all(words in shown for words in CHINESE), shown
        assert "面向 RL 后训练与基础设施岗位的模拟面试官" in shown
        assert "⏎ 开始面试  r 继续上次  h 历史记录  d 专练弱项  l 题库  ^q 退出" in footer(app)
        assert english_left(app) == []
        palette = {c.title for c in app.get_system_commands(app.screen)}
        assert {"开始面试", "继续上次", "历史记录", "专练弱项", "题库"} <= palette

        await pilot.press("h")  # the same keys
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")


async def test_picking_chinese_on_home_switches_its_words_at_once_and_back(make_app):
    app = make_app(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert "Start interview" in footer(app) and "Press Enter" in screen_text(app)
        app.screen.query_one("#length", Choice).value = 10
        app.screen.query_one("#section", Choice).value = "infrastructure"
        await pick_language(pilot, 1)
        assert app.screen.query_one("#lang", Choice).value == "zh"
        shown = screen_text(app)
        assert "10 道题" in shown and "工程基础设施" in shown, "the options keep what was chosen, in Chinese"
        assert "选好下面的设置，按 Enter 开始面试。" in shown and "还没有面试记录" in shown
        assert "开始面试" in footer(app)
        assert english_left(app) == []
        assert (app.screen.query_one("#length", Choice).value, app.screen.query_one("#section", Choice).value) == (
            10,
            "infrastructure",
        )

        await pick_language(pilot, 0)
        assert "Start interview" in footer(app) and "10 questions" in screen_text(app)
        assert not any(words in screen_text(app) for words in CHINESE)


async def test_options_left_as_they_were_are_shown_in_the_language_picked(make_app):
    """A kept first option went on showing its old words: a trial's Home in 中文 read "both sections"."""
    app = make_app(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert "both sections" in screen_text(app)
        await pick_language(pilot, 1)
        shown = screen_text(app)
        assert "全部方向" in shown and "both sections" not in shown, shown
        assert app.screen.query_one("#section", Choice).value == "both"


async def test_home_names_the_unfinished_session_and_the_topics_in_chinese(make_app, bank):
    app = make_app(["algo-07", "infra-01"], lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await leave(pilot)
        assert isinstance(app.screen, HomeScreen)
        shown = " ".join(screen_text(app).split())
        assert "未完成的面试 tui-0001，开始于" in shown
        assert "UTC：共 2 道题（algo-07, infra-01），已保存 1 个回答。按 R 继续。" in shown
        assert "还没有做完的面试" in shown or "强项：" in shown
        assert "Unfinished" not in shown and "answer saved" not in shown


async def test_the_configured_language_is_home_s_when_no_flag_says_otherwise(settings, clock, bank, notes_retriever):
    from tui.app import InterviewApp

    chinese = settings.model_copy(update={"interview": settings.interview.model_copy(update={"lang": "zh"})})
    app = InterviewApp(chinese, clock=clock, bank=bank, retriever=notes_retriever)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert "开始面试" in footer(app) and "选好下面的设置" in screen_text(app)


async def test_the_library_opened_after_picking_chinese_on_home_shows_the_chinese_prompts(make_app, bank):
    from tui.screens.library import LibraryScreen
    from tui.widgets.fitted_table import FittedTable

    app = make_app(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await pick_language(pilot, 1)
        app.screen.set_focus(None)  # off the dropdown
        await pilot.press("l")
        await wait_until(pilot, lambda: isinstance(app.screen, LibraryScreen), "the library")
        await settle(pilot)
        table = app.screen.query_one("#library-questions", FittedTable)
        row = next(table.get_row_at(i) for i in range(table.row_count) if str(table.get_row_at(i)[0]) == "algo-07")
        assert str(row[-1]).rstrip("…")[:8] == bank["algo-07"].prompt.zh[:8]
