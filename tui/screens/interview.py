"""The interview: transcript, answer editor, side panel. The agent runs in a worker; its events
arrive as messages (one class per kind of event, tui.messages), so the UI never waits on it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Header, TextArea
from textual.worker import Worker

from agent.brains.parts import gap_lines
from agent.interview.events import Event
from agent.interview.sessions import SessionBusy
from agent.labels import labels
from agent.planning import PlanRequest
from agent.state import CandidateAction
from common.settings import Lang
from tui.messages import (
    AnswerAssessed,
    AnswerRecovered,
    InterviewerSpoke,
    QuestionClosed,
    SessionEnded,
    TokenStreamed,
    message_for,
)
from tui.screens.base import AppScreen, screen_key
from tui.widgets.fitted_footer import FittedFooter
from tui.widgets.side_panel import SidePanel
from tui.widgets.transcript import InterviewerTurn, Transcript

if TYPE_CHECKING:  # the app imports this screen before the interviewer loads: LangGraph must not come with it
    from agent.interview.runner import Interview

DRAFT_PAUSE_S = 1.0
"""The editor's text is saved this long after typing pauses."""

TIME_KEPT_S = 5
"""The clock is saved this often while it runs (and at each reply, draft saved and leaving): a kill
loses at most this much of it."""


class InterviewScreen(AppScreen):
    KEYS = "interview"
    BINDINGS = [
        screen_key(KEYS, "ctrl+s", "send", priority=True),
        screen_key(KEYS, "ctrl+enter", "send", show=False, priority=True),
        screen_key(KEYS, "f2", "hint"),
        screen_key(KEYS, "f3", "idk"),
        screen_key(KEYS, "f4", "skip"),
        screen_key(KEYS, "f5", "repeat"),
        screen_key(KEYS, "f10", "end"),
        screen_key(KEYS, "escape", "leave", priority=True),  # the editor would otherwise take Escape
    ]
    PALETTE = BINDINGS[:1] + BINDINGS[2:]

    def __init__(
        self,
        session: Interview,
        start: tuple[PlanRequest, Lang] | None,
        max_follow_ups: int | None = None,
        take_over: bool = False,
        unsent: str = "",
    ) -> None:
        super().__init__()
        self.session = session
        self.take_over = take_over
        """Resume even though another process drives the session (the candidate said so)."""
        self.unsent = unsent
        """An answer a window that lost the session could not send: back in the editor here."""
        self.gaps = dict(start[0].gaps) if start is not None else {}
        """A drill's questions that open on last time's gap: the key points not shown then, told
        after the first answer (as the plain drill does)."""
        self.start = start
        self.lang = start[1] if start is not None else _session_lang(session)
        """The session's language: this screen's own words are in it, as the review and report are."""
        self.say = labels(self.lang)
        self.session_lang = self.lang  # its keys too
        self.review_due: str | None = None
        """A closed question to review once its summary is saved (at the next interviewer turn)."""
        self.max_follow_ups = max_follow_ups
        """For a new session: follow-ups per question (a drill's are fewer); default from the settings."""
        self.streaming: InterviewerTurn | None = None
        self.lost: SessionBusy | None = None
        """Set once the candidate chose to leave the session to the window that took it over."""
        self.started_at: float | None = None
        """When the side panel's clock started: at the first question shown, not while loading; on
        resume, as far back as the time spent before."""
        self.time_kept = 0
        """The clock's reading last saved (what a kill would leave)."""
        self._draft_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="room"):
            with Vertical(id="conversation"):
                yield Transcript(id="transcript")
                yield TextArea(id="answer", soft_wrap=True, show_line_numbers=False, tab_behavior="indent")
            yield SidePanel(id="side")
        yield FittedFooter()

    def on_mount(self) -> None:
        side = self.query_one(SidePanel)
        if self.max_follow_ups is None:
            self.max_follow_ups = self.app.settings.interview.max_follow_ups
        side.max_follow_ups = self.max_follow_ups
        side.lang = self.lang
        self.set_interval(1, self._tick)
        editor = self.query_one("#answer", TextArea)
        editor.border_title = self.say("answer_title")
        if self.unsent:
            editor.load_text(self.unsent)  # kept as the draft once the resumed question is on screen
        if self.start is not None:
            request, lang = self.start
            self.run_agent(self.session.start(request, lang, self.max_follow_ups))
        else:
            self.run_agent(self.session.resume(self.take_over), replay=True)

    def on_unmount(self) -> None:
        """Left (or the app quit): another window may resume the session now."""
        self._keep_time()
        self.session.release()

    def _elapsed(self) -> int | None:
        return None if self.started_at is None else int(self.app.clock() - self.started_at)

    def _tick(self) -> None:
        elapsed = self._elapsed()
        if elapsed is not None:
            self.query_one(SidePanel).elapsed = elapsed
            if elapsed >= self.time_kept + TIME_KEPT_S:
                self._keep_time()

    def _keep_time(self) -> None:
        """Every TIME_KEPT_S, at each reply, with each draft and when leaving: a kill loses the time
        since then (it lost everything since the last reply: 00:12 came back as 00:08)."""
        elapsed = self._elapsed()
        if elapsed is not None:
            self.session.save_time(elapsed)
            self.time_kept = elapsed

    def _action_note(self, action: CandidateAction) -> str:
        """What the transcript says for a reply that is not an answer: "[skipped the question]"."""
        return self.say("action_note", action=self.say.name("actions", action.value))

    @work(exclusive=True, group="agent", exit_on_error=False)
    async def run_agent(self, events: AsyncIterator[Event], replay: bool = False) -> None:
        self.query_one(SidePanel).working = True
        if replay:
            await self._replay_current_question()
        async for event in events:
            self.post_message(message_for(event))

    async def _replay_current_question(self) -> None:
        """On resume, where the candidate was: the current question's exchanges so far."""
        state = await self.session.state()
        pending = state.get("pending")
        shown = [t for t in state.get("turns", []) if pending is not None and t.question == pending.question]
        number, of = state.get("position", 0) + 1, len(state.get("plan", []))  # as the graph numbers its prompts
        transcript = self.query_one(Transcript)
        for turn in shown:
            transcript.add_interviewer(turn.asked, self._label(turn.kind, number, of, turn.question))
            if turn.action is CandidateAction.answer:
                transcript.add_candidate(turn.answer)
            else:
                transcript.add_action(self._action_note(turn.action))
        if shown:
            transcript.add_note(self.say("resumed_here"))
        assessed = [t.assessment for t in shown if t.assessment is not None]
        if assessed:  # the panel's depth, as it was when the session stopped
            self._show_scores(assessed[-1].depth, assessed[-1].fallback_reason)

    def _label(self, speaker: str, number: int, of: int, question: str) -> str:
        """The heading over an interviewer turn: "Follow-up · Q2/6 · algo-07" (its question's number)."""
        return self.say(
            "turn_heading", speaker=self.say.name("speakers", speaker), number=number, of=of, question=question
        )

    def _show_scores(self, depth: int, fallback_reason: str | None) -> None:
        side = self.query_one(SidePanel)
        side.depth = depth
        side.scored_offline = fallback_reason

    def worker_done(self, worker: Worker) -> None:
        if worker.group == "agent":
            self.query_one(SidePanel).working = False

    def worker_failed(self, worker: Worker, error: BaseException) -> bool:
        if worker.group == "agent" and isinstance(error, SessionBusy):
            self._offer_take_over(error)
            return True
        return False

    def _offer_take_over(self, busy: SessionBusy) -> None:
        """The session is driven elsewhere: on resume, or at this window's next answer after another
        took it over. Taking it (back) over reopens it here, with the unsent answer in the editor."""
        from tui.screens.confirm import ConfirmScreen

        editor = self.query_one("#answer", TextArea)
        if busy.unsent and not editor.text.strip():
            editor.load_text(busy.unsent)

        def chosen(take: bool | None) -> None:
            if take:
                unsent = editor.text
                self.app.pop_screen()
                self.app.resume_session(self.session.session_id, take_over=True, unsent=unsent)
            elif busy.unsent:
                self.lost = busy
                self.query_one(Transcript).add_note(self.say("not_sent"))
            else:
                self.app.pop_screen()

        why = busy.reason.split("; ")[0]
        self.app.push_screen(
            ConfirmScreen(
                self.say("take_over", why=f"{why[:1].upper()}{why[1:]}"),
                self.say("confirm_yes"),
                self.say("confirm_no"),
            ),
            chosen,
        )

    @on(TokenStreamed)
    def _show_token(self, message: TokenStreamed) -> None:
        if self.streaming is None:
            self.streaming = self.query_one(Transcript).add_interviewer("", self.say.name("speakers", "follow_up"))
        self.streaming.append(message.event.text)

    @on(InterviewerSpoke)
    def _show_prompt(self, message: InterviewerSpoke) -> None:
        event = message.event
        transcript = self.query_one(Transcript)
        side = self.query_one(SidePanel)
        if self.streaming is not None:
            self.streaming.remove()
            self.streaming = None
        if self.started_at is None:
            self.time_kept = self.session.time_spent()
            self.started_at = self.app.clock() - self.time_kept
            self._tick()
        question = self.app.services.bank[event.question]
        transcript.add_interviewer(event.text, self._label(event.speaker, event.number, event.of, question.id))
        side.number, side.of, side.question = event.number, event.of, question.id
        side.section, side.topics = question.section.value, self.say.topics(question.topics)
        side.follow_ups = event.follow_ups
        if event.opens_question:
            side.depth = None
        editor = self.query_one("#answer", TextArea)
        draft = self.session.draft()  # only after a restart: sending an answer clears its draft
        if draft and not editor.text.strip():
            editor.load_text(draft)
            editor.move_cursor(editor.document.end)
            transcript.add_note(self.say("draft_back"))
        elif editor.text.strip():
            self.keep_draft()  # typed while the interviewer was thinking, when there was no turn to keep it for
        editor.focus()
        self._review()

    @on(AnswerRecovered)
    def _show_recovered(self, message: AnswerRecovered) -> None:
        transcript = self.query_one(Transcript)
        if message.event.action == "answer":
            transcript.add_candidate(message.event.answer)
        transcript.add_note(self.say("answer_recovered"))

    @on(AnswerAssessed)
    def _show_assessment(self, message: AnswerAssessed) -> None:
        event = message.event
        self._show_scores(event.depth, event.fallback_reason)
        if event.question in self.gaps:
            # Last time's gap less what this answer has just shown, by part (never the answers)
            question = self.app.services.bank[event.question]
            still = [kp for kp in self.gaps.pop(event.question) if kp not in event.covered]
            if still:
                lines = [f"  • {line}" for line in gap_lines(question, still, self.say, self.lang)]
                self.query_one(Transcript).add_note("\n".join([self.say("gap_note"), *lines]))

    @on(QuestionClosed)
    def _review_when_saved(self, message: QuestionClosed) -> None:
        if message.event.said:  # the answer to a last "I already said that"
            self.query_one(Transcript).add_interviewer(message.event.said, self.say.name("speakers", "reply"))
        # The summary is saved by the time the interviewer speaks again (or the session ends).
        self.review_due = message.event.question if self.app.settings.interview.review == "each" else None

    @on(SessionEnded)
    def _show_report(self) -> None:
        self._report()

    def _review(self) -> None:
        if self.review_due is None:
            return
        from tui.screens.review import ReviewScreen

        question, self.review_due = self.review_due, None
        self.app.push_screen(ReviewScreen(self.session, question))

    def _report(self) -> None:
        from tui.screens.report import ReportScreen

        self.app.push_screen(ReportScreen(self.session.session_id))  # exported by the time the session is done
        self._review()  # the last question's review comes first; closing it shows the report

    def _reply(self, action: CandidateAction, text: str = "") -> None:
        if self.lost is not None:
            self._offer_take_over(SessionBusy(self.lost.reason, unsent=text))
            return
        if self.session.waiting is None:
            self.notify(self.say("still_thinking"), severity="warning")
            return
        self._keep_time()
        if action is CandidateAction.answer:
            self.query_one(Transcript).add_candidate(text)
        else:
            self.query_one(Transcript).add_action(self._action_note(action))
        self.run_agent(self.session.submit(action, text))

    @on(TextArea.Changed, "#answer")
    def _typed(self) -> None:
        """Keep the draft once typing pauses (and at once when leaving, below)."""
        if self._draft_timer is not None:
            self._draft_timer.stop()
        self._draft_timer = self.set_timer(DRAFT_PAUSE_S, self.keep_draft)

    def keep_draft(self) -> None:
        self.session.save_draft(self.query_one("#answer", TextArea).text)
        self._keep_time()

    def action_send(self) -> None:
        # The binding has priority, so the app runs it as Ctrl+S arrives, while keys typed just
        # before it may still wait in the editor's queue: a trial's fast typing sent "...in R1-Ze"
        # and left "ro. They ..." in the next question's editor. Send once the editor has them.
        self.query_one("#answer", TextArea).call_later(self._send_typed)

    def _send_typed(self) -> None:
        editor = self.query_one("#answer", TextArea)
        if not editor.text.strip():
            self.notify(self.say("write_first"), severity="warning")
            return
        text = editor.text
        editor.clear()
        self._reply(CandidateAction.answer, text)

    def action_hint(self) -> None:
        self._reply(CandidateAction.hint)

    def action_idk(self) -> None:
        self._reply(CandidateAction.idk)

    def action_skip(self) -> None:
        self._reply(CandidateAction.skip)

    def action_repeat(self) -> None:
        self._reply(CandidateAction.repeat)

    async def action_end(self) -> None:
        """End the whole session, after a yes: it cannot be undone (a trial user ended a six-question
        interview after two with F10 and lost the answer being typed), unlike leaving (Esc)."""
        from tui.screens.confirm import ConfirmScreen

        def end(confirmed: bool | None) -> None:
            if confirmed:
                self._reply(CandidateAction.end)

        question = self.say(
            "end_question_unsent" if self.query_one("#answer", TextArea).text.strip() else "end_question"
        )
        await self.app.push_screen(ConfirmScreen(question, self.say("confirm_yes"), self.say("confirm_no")), end)

    async def action_leave(self) -> None:
        from tui.screens.confirm import ConfirmScreen

        self.keep_draft()

        def leave(confirmed: bool | None) -> None:
            if confirmed:
                # the draft is kept by now: a session with only a draft in it is resumable
                left = "left_saved" if self.session.kept_anything() else "left_empty"
                self.app.pop_screen()
                self.app.notify(self.say(left, session_id=self.session.session_id))

        await self.app.push_screen(
            ConfirmScreen(self.say("leave_question"), self.say("confirm_yes"), self.say("confirm_no")), leave
        )


def _session_lang(session: Interview) -> str:
    """A resumed session's language, as the session index has it (the plain front end reads it there too)."""
    row = session.index.get(session.session_id)
    return row.lang if row is not None else "en"
