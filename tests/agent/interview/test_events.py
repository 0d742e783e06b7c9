"""The interview's typed events: written by the graph's nodes, read back from what the graph saves,
and written to the JSONL stream with the keys scripts read."""

import io
import json

import pytest

from agent.interview.events import Assessed, PartShown, PreviousGap, Prompted, QuestionDone, Recovered, SessionDone
from tui.plain import Renderer

JSONL_KEYS = {
    "assessment": ["type", "question", "depth", "covered", "missed", "flags", "brain", "fallback_reason"],
    "question_done": ["type", "question", "depth", "parts", "hinted", "said", "wrong", "capped_by"],
    "session_done": ["type", "session_id", "status"],
}


async def test_the_graph_streams_typed_events_whose_jsonl_lines_keep_their_keys(graph_driver):
    driver = graph_driver(plan=["algo-07"])
    await driver.start()
    await driver.reply(
        "answer", "PPO clips the probability ratio to [1-eps, 1+eps] because large updates are unstable."
    )
    await driver.reply("skip")
    assert [type(e) for e in driver.streamed] == [Assessed, Assessed, QuestionDone, SessionDone]
    for line in driver.events:
        assert list(line) == JSONL_KEYS[line["type"]]
    done = next(e for e in driver.streamed if isinstance(e, QuestionDone))
    assert all(isinstance(p, PartShown) for p in done.parts)
    assert list(done.public()["parts"][0]) == ["part", "text", "shown", "of", "hinted"]


def test_a_frozen_event_writes_its_tuples_as_json_lists():
    """Events hold tuples (frozen means frozen); the JSONL line is the one lists made before."""
    done = QuestionDone("algo-07", 2, (PartShown("why-min", "Why min", 1, 1, True),), ("why-min-pessimistic",))
    assert done.public() == {
        "question": "algo-07",
        "depth": 2,
        "parts": [{"part": "why-min", "text": "Why min", "shown": 1, "of": 1, "hinted": True}],
        "hinted": ["why-min-pessimistic"],
        "said": None,
        "wrong": [],
        "capped_by": None,
    }
    assert PreviousGap("algo-07", ("clip-the-ratio",)).public() == {
        "question": "algo-07",
        "key_points": ["clip-the-ratio"],
    }


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


@pytest.mark.parametrize(("lang", "shown", "not_shown"), [("en", "off topic", "off_topic"), ("zh", "偏题", "off")])
def test_a_flag_in_the_plain_terminal_is_in_the_session_language(bank, lang, shown, not_shown):
    """A Chinese session showed "(off_topic)", the enum's own name, after a judged answer."""
    out = io.StringIO()
    Renderer(out, jsonl=False, bank=bank, lang=lang).show(Assessed(question="algo-07", depth=0, flags=("off_topic",)))
    assert shown in out.getvalue() and not_shown not in out.getvalue()


@pytest.mark.parametrize(
    ("lang", "aside"), [("en", "1/4 (a wrong claim, off topic)"), ("zh", "1/4（有错误论断、偏题）")]
)
def test_the_flags_after_a_depth_are_an_aside_in_the_session_language(bank, lang, aside):
    """A Chinese session showed "目前深度：1/4 (有错误论断)", half-width brackets in a Chinese line."""
    out = io.StringIO()
    Renderer(out, jsonl=False, bank=bank, lang=lang).show(
        Assessed(question="algo-07", depth=1, flags=("misconception", "off_topic"))
    )
    assert aside in out.getvalue(), out.getvalue()


@pytest.mark.parametrize(("lang", "label"), [("en", "[Interviewer]"), ("zh", "[面试官]")])
def test_a_pause_after_a_hint_is_the_interviewers_line_not_another_hint(bank, lang, label):
    """After a hint, "let me think" was answered with "[hint] Take your time." in the plain terminal."""
    wait = Prompted(
        kind="hint", question="algo-07", text="Take your time.", number=1, of=1, turn=2, base="A hint", answering="wait"
    )
    hint = Prompted(kind="hint", question="algo-07", text="A hint: ...", number=1, of=1, turn=1)
    out = io.StringIO()
    renderer = Renderer(out, jsonl=False, bank=bank, lang=lang)
    renderer.show(wait)
    renderer.show(hint)
    first, second = (line.strip() for line in out.getvalue().split("\n> ")[:2])
    assert first.startswith(label) and not second.startswith(label)
