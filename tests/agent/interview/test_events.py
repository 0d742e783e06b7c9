"""The interview's typed events: built from what the graph saves and streams, and written to the JSONL
stream with the keys scripts read."""

import io
import json

import pytest

from agent.interview.events import Assessed, Prompted, QuestionDone, Recovered, streamed
from tui.plain import Renderer


async def test_every_event_the_graph_streams_becomes_a_typed_event_with_the_same_fields(graph_driver):
    driver = graph_driver(plan=["algo-07"])
    await driver.start()
    await driver.reply(
        "answer", "PPO clips the probability ratio to [1-eps, 1+eps] because large updates are unstable."
    )
    await driver.reply("skip")
    chunks = [e for e in driver.events if e["type"] != "session_done"]  # the runner tells that one itself
    assert {c["type"] for c in chunks} == {"assessment", "question_done"}
    for chunk in chunks:
        event = streamed(chunk)
        assert isinstance(event, Assessed | QuestionDone)
        assert {"type": event.type, **event.public()} == chunk


def test_a_prompt_is_read_from_an_interrupt_saved_by_an_earlier_release():
    """Interrupts are dicts in the checkpoints; extra keys are ignored, a missing optional one defaults."""
    saved = {"question": "algo-07", "kind": "follow_up", "text": "Why min?", "target": "why-min", "base": None}
    prompt = Prompted.of_payload({**saved, "number": 1, "of": 2, "turn": 3})
    assert (prompt.type, prompt.turn, prompt.follow_ups, prompt.target) == ("follow_up", 3, 0, "why-min")


@pytest.mark.parametrize("kind", ["ask", "follow_up", "hint"])
def test_a_prompt_in_the_jsonl_stream_names_its_target_unless_it_is_the_question(bank, kind):
    prompt = Prompted(kind=kind, question="algo-07", text="Why\x1b[31m min?", number=1, of=2, turn=0, target="t")
    out = io.StringIO()
    Renderer(out, jsonl=True, bank=bank).show(prompt)
    line = json.loads(out.getvalue())
    assert line["type"] == kind and line["text"] == "Why min?", "escape sequences never reach the terminal"
    assert ("target" in line) == (kind != "ask")


def test_a_recovered_reply_in_the_jsonl_stream_says_what_it_answers_and_what_was_sent(bank):
    prompt = Prompted(kind="ask", question="algo-07", text="What does PPO clip?", number=1, of=1, turn=0)
    out = io.StringIO()
    Renderer(out, jsonl=True, bank=bank).show(Recovered(prompt, "answer", "the ratio"))
    line = json.loads(out.getvalue())
    assert (line["type"], line["question"], line["action"], line["answer"]) == (
        "recovered",
        "algo-07",
        "answer",
        "the ratio",
    )
