"""For `rl-interview bench`: open the interview room headless, start at once, and print one line when
the first question is drawn. The bench times this process from its start to that line."""

from __future__ import annotations

import asyncio
import sys
import time

from agent.planning import PlanRequest
from common.settings import load_settings
from tui.app import InterviewApp
from tui.widgets.transcript import InterviewerTurn

TIMEOUT_S = 120


async def first_question_drawn(question_id: str) -> None:
    app = InterviewApp(load_settings(), request=PlanRequest(ids=[question_id]))
    async with app.run_test(size=(120, 40)) as pilot:
        app.start_interview()  # as if Enter were pressed on Home the moment it appears
        deadline = time.monotonic() + TIMEOUT_S
        while not app.screen.query(InterviewerTurn):
            if time.monotonic() > deadline:
                raise SystemExit(f"the first question was not drawn within {TIMEOUT_S} s")
            await pilot.pause(0.005)
        await pilot.pause()  # one more refresh: the turn is on screen, not just mounted
        sys.stdout.write("drawn\n")
        sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(first_question_drawn(sys.argv[1]))
