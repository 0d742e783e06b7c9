"""The interview room speaks the session's language: the side panel, the editor's title, the speakers
in the transcript, the notes and the leave dialog are in Chinese for a Chinese session (new or
resumed, whatever the app's language), and stay in English for an English one.

The expected words are written here, not read from prompts/labels.yaml: a wrong label fails."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from textual.widgets import TextArea
from tui_helpers import (
    CLIP_ANSWER,
    SIZE,
    answer,
    footer,
    interviewer_turns,
    leave,
    next_turn,
    notes,
    settle,
    start,
    wait_loaded,
    wait_until,
)

from tui.screens.confirm import ConfirmScreen
from tui.screens.interview import InterviewScreen
from tui.widgets.side_panel import SidePanel

ENGLISH_LABELS = ("Question", "Section", "Topics", "Follow-up", "Time", "Depth", "Your answer", "thinking")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def panel_text(screen) -> str:
    return str(screen.query_one(SidePanel).render())


def editor_title(screen) -> str:
    return str(screen.query_one("#answer", TextArea).border_title)


@asynccontextmanager
async def interview_room(make_app, lang: str) -> AsyncIterator[tuple]:
    """A new two-question session in `lang`, on its first question: (app, pilot, screen)."""
    app = make_app(["algo-07", "infra-01"], lang=lang)
    async with app.run_test(size=SIZE) as pilot:
        await start(pilot)
        yield app, pilot, app.screen


def assert_no_english_label(shown: str) -> None:
    left = [word for word in ENGLISH_LABELS if word in shown]
    assert not left, f"English labels {left} in a Chinese session:\n{shown}"


async def test_a_chinese_session_shows_the_panel_editor_and_speakers_in_chinese(make_app, bank):
    async with interview_room(make_app, "zh") as (app, pilot, screen):
        panel = panel_text(screen)
        for words in ("第 1 题，共 2 题", "方向\n算法", "主题\n", "追问 0/3", "用时 00:00", "深度 -"):
            assert words in panel, (words, panel)
        topics = bank["algo-07"].topics
        # "hyperparameters, rollout" in a Chinese session: the topics are named in Chinese too
        assert "PPO、信赖域、GRPO 变体" in panel
        assert not [t for t in topics if t in panel], panel
        assert editor_title(screen) == "你的回答（Ctrl+S 发送）"
        assert interviewer_turns(screen)[0].label == "题目 · 第 1/2 题 · algo-07"
        assert_no_english_label(panel + editor_title(screen) + interviewer_turns(screen)[0].label)

        await pilot.press("ctrl+s")  # nothing written yet
        await settle(pilot)
        assert any(n.message.startswith("请先写下回答") for n in app._notifications)

        await answer(pilot, CLIP_ANSWER)
        side = screen.query_one(SidePanel)
        assert side.depth is not None
        zh_names = ("没有答对的内容", "记得概念", "讲清机制", "能做推理", "专家水平")
        assert f"深度 {side.depth}/4 {zh_names[side.depth]}" in panel_text(screen)
        assert "追问 1/3" in panel_text(screen)
        assert interviewer_turns(screen)[-1].label == "追问 · 第 1/2 题 · algo-07"

        await next_turn(pilot, ("f2",))
        assert "[要了提示]" in notes(screen)
        assert interviewer_turns(screen)[-1].label.startswith("提示 · ")

        side.working = True  # as run_agent does while the interviewer thinks
        side.scored_offline = "timeout"
        await pilot.pause()
        panel = panel_text(screen)
        assert "离线评分\n模型调用失败：timeout" in panel and "面试官正在思考…" in panel
        assert_no_english_label(panel)
        assert "Scored offline" not in panel and "the model failed" not in panel
        side.working, side.scored_offline = False, None

        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the leave dialog")
        dialog = app.screen
        assert dialog.question == "要离开面试吗？进度已保存，可以在首页继续。"
        assert (dialog.yes, dialog.no) == ("确定 (y)", "取消 (n)")
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen


async def test_a_resumed_chinese_session_speaks_chinese_in_an_english_app(make_app):
    """The language is the session's (its index row), not the app's: the plain front end does the same."""
    first = make_app(["algo-07", "infra-01"], lang="zh")
    async with first.run_test(size=SIZE) as pilot:
        await start(pilot)
        await answer(pilot, CLIP_ANSWER)
        await leave(pilot)

    app = make_app(["algo-07", "infra-01"], lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the resumed interview")
        await wait_until(pilot, lambda: len(interviewer_turns(app.screen)) == 2, "the pending follow-up")
        await settle(pilot)
        screen = app.screen
        assert screen.session.session_id == "tui-0001"
        assert [t.label for t in interviewer_turns(screen)] == [
            "题目 · 第 1/2 题 · algo-07",
            "追问 · 第 1/2 题 · algo-07",
        ]
        assert "已恢复：上面是你上次停下时的对话。" in notes(screen)
        panel = panel_text(screen)
        assert "第 1 题，共 2 题" in panel and "追问 1/3" in panel, panel
        assert editor_title(screen) == "你的回答（Ctrl+S 发送）"
        assert_no_english_label(panel + editor_title(screen) + "".join(notes(screen)))
        keys = footer(app)  # the session's language here too, not the app's
        assert "^s 发送  f2 提示  f3 不知道  f4 跳过  f5 再说一遍  f10 结束  esc 离开" in keys, keys


async def test_an_english_session_keeps_its_english_words(make_app, bank):
    async with interview_room(make_app, "en") as (app, pilot, screen):
        panel = panel_text(screen)
        expected = (
            "Question 1 of 2\nalgo-07\n\nSection\nalgorithm\n\nTopics\n"
            f"{', '.join(bank['algo-07'].topics)}\n\nFollow-ups 0/3\nTime 00:00\nDepth -\n\n"
        )
        assert panel == expected
        assert editor_title(screen) == "Your answer (Ctrl+S to send)"
        assert interviewer_turns(screen)[0].label == "Question · Q1/2 · algo-07"

        await next_turn(pilot, ("f2",))
        assert "[asked for a hint]" in notes(screen)
        assert interviewer_turns(screen)[-1].label.startswith("Hint · ")
        screen.query_one(SidePanel).working = True
        await pilot.pause()
        assert panel_text(screen).endswith("interviewer is thinking…")
        assert not CJK.search(panel_text(screen) + editor_title(screen) + "".join(notes(screen)))

        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the leave dialog")
        dialog = app.screen
        assert dialog.question == "Leave the interview? It is saved and you can resume it from Home."
        assert (dialog.yes, dialog.no) == ("Yes (y)", "No (n)")
