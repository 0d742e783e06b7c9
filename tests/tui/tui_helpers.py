"""Helpers for driving the TUI with Pilot (a plain module: conftest files are not importable)."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual import events
from textual.pilot import Pilot
from textual.widgets import Markdown, TextArea

from agent.planning import PlanRequest
from agent.state import CandidateAction
from knowledge.models import Question
from tui.messages import AgentMessage
from tui.screens.report import ReportScreen
from tui.screens.review import ReviewScreen
from tui.widgets.side_panel import SidePanel
from tui.widgets.transcript import CandidateTurn, InterviewerTurn

WAIT_S = 60.0
"""How long a Pilot test waits for the app before it fails: a failure detector, not a speed check
(figures are `bench`'s). Generous, because a busy machine is slow: the 100 KB paste's turn took more
than 15 s in a suite run at nice 19 beside two CPU burners and a second suite (issue 15)."""
SIZE = (120, 40)

# Answers for algo-07 (PPO clipping) that use the rubric's own cues.
CLIP_ANSWER = "PPO clips the probability ratio to 1 - epsilon and 1 + epsilon, because it keeps the update small."
ZERO_GRAD_ANSWER = "Once the ratio passes 1+eps with a > 0 the gradient is zero, because the clipped term wins."


async def wait_until(pilot: Pilot, predicate: Callable[[], object], what: str, timeout: float = WAIT_S) -> None:
    """Let the app run until `predicate()` holds; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout:.0f}s waiting for {what}; screens: {screen_names(pilot.app)}"
            )
        await pilot.pause(0.02)


async def settle(pilot: Pilot) -> None:
    """Wait for every worker (the interviewer's included) and for the messages they posted."""
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def still(pilot: Pilot) -> None:
    """Idle, no blinking cursor, no toast, the side panel measured: the same picture on every run.

    The side panel is re-measured because its height is otherwise whatever it was when something
    last laid it out (see test_pilot_interview.py::test_side_panel_shows_the_thinking_status_in_full)."""
    await settle(pilot)
    for screen in pilot.app.screen_stack:
        for field in screen.query("TextArea, Input"):
            field.cursor_blink = False
            # A TextArea caches a line under the same key with blinking off as in the dark half of
            # a blink, so a cursor caught dark stayed dark in the picture: on a loaded machine the
            # wait above outlasts the 0.5 s blink (#15's stress runs). A style update drops the cache.
            field.notify_style_update()
        for panel in screen.query(SidePanel):
            panel.refresh(layout=True)
    pilot.app.clear_notifications()
    await settle(pilot)


async def wait_loaded(pilot: Pilot) -> None:
    await wait_until(pilot, lambda: pilot.app.ready, "the interviewer to load")
    await settle(pilot)


def screen_names(app) -> list[str]:
    return [type(s).__name__ for s in app.screen_stack]


def interviewer_turns(screen) -> list[InterviewerTurn]:
    return list(screen.query(InterviewerTurn))


def candidate_texts(screen) -> list[str]:
    return [str(turn.render()) for turn in screen.query(CandidateTurn)]


def notes(screen) -> list[str]:
    return [str(note.render()) for note in screen.query(".note")]


def screen_text(app) -> str:
    """What the terminal shows for the active screen, as plain text, one line per row."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def footer(app) -> str:
    """The footer's row: each key with its description."""
    return screen_text(app).splitlines()[-1]


def report_rows(app) -> list[list[str]]:
    """The report's table as the screen shows it: number, question and depth of each row."""
    return [words[:3] for words in map(str.split, screen_text(app).splitlines()) if words and words[0].isdigit()]


async def start(pilot: Pilot) -> None:
    """From Home, Enter; return once the first question is on screen and the interviewer is idle."""
    await wait_loaded(pilot)
    await pilot.press("enter")
    await wait_until(pilot, lambda: interviewer_turns(pilot.app.screen), "the first question")
    await settle(pilot)


async def next_turn(pilot: Pilot, keys: tuple[str, ...], screen=None) -> None:
    """Press `keys` on the interview and wait for the interviewer's next turn (or another screen)."""
    screen = screen or pilot.app.screen
    before = len(interviewer_turns(screen))
    await pilot.press(*keys)
    await wait_until(
        pilot,
        lambda: len(interviewer_turns(screen)) > before or pilot.app.screen is not screen,
        f"the interviewer to answer {keys}",
    )
    await settle(pilot)


async def type_answer(pilot: Pilot, text: str) -> None:
    """Type `text` key by key into the answer editor (it must have the focus, as it does after a turn)."""
    editor = pilot.app.screen.query_one("#answer", TextArea)
    assert pilot.app.focused is editor, f"the answer editor should have the focus, not {pilot.app.focused!r}"
    await pilot.press(*text)
    assert editor.text == text


async def paste(pilot: Pilot, text: str) -> None:
    """A terminal's bracketed paste: the driver posts it to the app, which forwards it to the focus."""
    editor = pilot.app.screen.query_one("#answer", TextArea)
    assert pilot.app.focused is editor, f"the answer editor should have the focus, not {pilot.app.focused!r}"
    before = editor.text
    pilot.app.post_message(events.Paste(text))
    await wait_until(pilot, lambda: editor.text != before, "the paste to land in the editor")
    await pilot.pause()


async def answer(pilot: Pilot, text: str) -> None:
    """Paste an answer, send it with Ctrl+S and wait for the interviewer."""
    await paste(pilot, text)
    await next_turn(pilot, ("ctrl+s",))


async def confirm(pilot: Pilot, key: str, reply: str, asks: str) -> None:
    """Press `key`, check the yes/no dialog it opens asks `asks`, answer `reply` ("y" or "n")."""
    from tui.screens.confirm import ConfirmScreen

    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), f"the dialog asking {asks!r}")
    assert asks in screen_text(pilot.app)
    await pilot.press(reply)
    await settle(pilot)


async def leave(pilot: Pilot) -> None:
    """Quit the interview (Ctrl+Q asks as Escape does), say yes, and wait until Home is back."""
    from tui.screens.confirm import ConfirmScreen

    await pilot.press("ctrl+q")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the confirm dialog")
    await pilot.press("y")
    await settle(pilot)


class AgentEvents:
    """A message_hook that records each AgentEvent once (a message is seen again as it bubbles up)."""

    def __init__(self) -> None:
        self.events: list = []

    def __call__(self, message) -> None:
        if isinstance(message, AgentMessage) and not any(e is message.event for e in self.events):
            self.events.append(message.event)

    @property
    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def last(self, kind: str):
        return next(e for e in reversed(self.events) if e.type == kind)


def probes(question: Question, lang: str = "en") -> list[str]:
    """Every probe the bank has for a question: key points' and expert probes."""
    return [kp.probe.get(lang) for kp in question.key_points] + [p.get(lang) for p in question.expert_probes]


async def make_sessions(services) -> None:
    """Two sessions made straight through the interviewer: tui-0001 finished (skipped), tui-0002
    left unfinished at its first question."""
    finished = services.interview("tui-0001")
    async for _ in finished.start(PlanRequest(ids=["algo-07"]), "en", 3):
        pass
    async for _ in finished.submit(CandidateAction.skip):
        pass
    unfinished = services.interview("tui-0002")
    async for _ in unfinished.start(PlanRequest(ids=["infra-01", "algo-07"]), "en", 3):
        pass


async def skip_to_review(pilot: Pilot) -> str:
    """F4 on the interview; return the Markdown of the question's review once it is on screen."""
    await pilot.press("f4")
    return await review_shown(pilot)


async def review_shown(pilot: Pilot) -> str:
    """The Markdown of the question's review, once it is on screen."""
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReviewScreen), "the review")
    await wait_until(pilot, lambda: pilot.app.screen.query(Markdown), "the review's content")
    return pilot.app.screen.query(Markdown).first().source


async def finish_to_report(pilot: Pilot) -> None:
    """F4 on the last question: its review comes first, and closing it shows the report beneath."""
    await skip_to_review(pilot)
    await close_review_to_report(pilot)


async def close_review_to_report(pilot: Pilot) -> None:
    """Esc on the last question's review: the report, once its content is there."""
    await pilot.press("escape")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReportScreen), "the report")
    await wait_until(pilot, lambda: pilot.app.screen.report is not None, "the report's content")
