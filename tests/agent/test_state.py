"""The interview's typed state: what starts a session, how turns accumulate, and what a checkpoint
may hold."""

from agent.interview.graph import builder
from agent.interview.runner import checkpoint_serde
from agent.state import Amended, Assessment, InterviewInput, QuestionProgress, Turn, record_turns


def turn(answer: str, **changes) -> Turn:
    return Turn(question="algo-07", kind="ask", asked="Why clip?", answer=answer, **changes)


def test_turns_are_appended_or_the_last_one_amended():
    first, second = turn("one"), turn("two")
    turns = record_turns(record_turns([], first), second)
    assert [t.answer for t in turns] == ["one", "two"]
    decided = second.model_copy(update={"target": "clip-the-ratio"})
    amended = record_turns(turns, Amended(turn=decided))
    assert amended == [first, decided] and turns == [first, second], "a new list; the old one is untouched"


def test_a_whole_list_written_by_the_earlier_release_replaces_the_turns():
    """That release's nodes wrote `turns` whole; such a write saved before a kill is applied on resume."""
    first, second = turn("one"), turn("two")
    judged = second.model_copy(update={"target": "clip-the-ratio"})
    assert record_turns([first, second], [first, judged]) == [first, judged]


def test_a_session_starts_from_exactly_the_input_schema():
    schema = builder.compile().get_input_jsonschema()
    assert set(schema["properties"]) == set(InterviewInput.__annotations__)
    assert set(schema["required"]) == {"session_id", "request", "plan", "lang", "max_follow_ups"}


def test_the_progress_and_an_amended_turn_come_back_from_a_checkpoint_as_they_went_in():
    """Checkpoints deserialise only allow-listed classes: anything else would come back as a dict."""
    serde = checkpoint_serde()
    assessment = Assessment(question="algo-07", depth=2, answer_depth=2, missed=["why-min-pessimistic"])
    progress = QuestionProgress(assessment=assessment, probed=("clip-the-ratio",), follow_ups=1, hints=("x",))
    for value in (progress, Amended(turn=turn("one", assessment=assessment))):
        back = serde.loads_typed(serde.dumps_typed(value))
        assert type(back) is type(value) and back == value
