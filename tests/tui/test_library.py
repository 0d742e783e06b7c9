"""The Library: `l` on Home; filter the questions, read one (rubric and note), search the knowledge
store and open a hit, drill a question now; your own questions marked, broken ones named. All by
keyboard, with the real interviewer and profile under tmp_path."""

from __future__ import annotations

from datetime import UTC, datetime

from learner_records import attempt
from textual.widgets import DataTable, Input, Markdown, Static, TabbedContent
from tui_helpers import interviewer_turns, screen_text, settle, wait_loaded, wait_until
from user_questions import break_field, write_user_question

from agent.learner.profile import Profile, profile_path
from knowledge.store import KnowledgeStore
from tui.latex import latex_to_unicode
from tui.screens.home import HomeScreen
from tui.screens.interview import InterviewScreen
from tui.screens.library import LibraryScreen
from tui.screens.question import QuestionScreen

SIZE = (120, 40)


def rows(table: DataTable) -> list[str]:
    return [key.value for key in table.rows]


def cells(table: DataTable, key: str) -> list[str]:
    return [str(cell) for cell in table.get_row(key)]


def markdown_source(screen, selector: str) -> str:
    return screen.query_one(selector, Markdown).source


async def open_library(pilot) -> LibraryScreen:
    await wait_loaded(pilot)
    await pilot.press("l")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, LibraryScreen), "the library")
    await settle(pilot)
    return pilot.app.screen


async def test_filter_read_search_open_the_hit_and_drill_it_all_by_keyboard(make_app, settings, bank):
    KnowledgeStore(settings).build()  # the search goes to the knowledge store itself
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        library = await open_library(pilot)
        assert app.focused is library.query_one("#library-query", Input)
        questions = library.query_one("#library-questions", DataTable)
        assert rows(questions)[0] == "algo-01" and len(rows(questions)) == len(bank)

        await pilot.press(*"clip")
        await settle(pilot)
        assert rows(questions) == ["algo-07"]
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question")
        await settle(pilot)
        assert app.screen.question_id == "algo-07"
        rubric = markdown_source(app.screen, "#rubric-text")
        assert bank["algo-07"].key_points[0].statement in rubric
        assert bank["algo-07"].misconceptions[0].correction in rubric

        await pilot.press("n")
        await settle(pilot)
        assert app.screen.query_one(TabbedContent).active == "note"
        note = markdown_source(app.screen, "#note-text")
        assert note.startswith("# PPO clipping") and "Question: algo-07" not in note
        assert "The clipped surrogate objective" in screen_text(app)

        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is library, "back to the library")
        await pilot.press("slash", *"batch invariance", "enter")
        await wait_until(pilot, lambda: library.hits, "the search hits")
        await settle(pilot)
        hits = library.query_one("#library-hits", DataTable)
        assert app.focused is hits
        first = library.hits[0]
        assert first.question_id == "infra-12" and first.source == "notes/infra-12.md"
        assert "store is not built" not in str(library.query_one("#library-search-note", Static).render())
        section = first.heading.split(" › ")[-1]
        assert f"notes/infra-12.md › {section}"[:40] in screen_text(app)

        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the hit's question")
        await settle(pilot)
        assert app.screen.question_id == "infra-12"
        assert app.screen.query_one(TabbedContent).active == "note"
        assert latex_to_unicode(section) in screen_text(app), "the note opens at the hit's heading"

        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the drill")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the drill's first question")
        await settle(pilot)
        assert app.screen.session.waiting.question == "infra-12"
        assert app.services.index.get("tui-0001").plan == ["infra-12"]


async def test_without_a_store_the_search_reads_the_notes_and_says_so(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        library = await open_library(pilot)
        await pilot.press(*"atomic add", "enter")
        await wait_until(pilot, lambda: library.hits, "the search hits")
        await settle(pilot)
        assert library.hits[0].question_id == "infra-12"
        assert "knowledge store is not built" in str(library.query_one("#library-search-note", Static).render())


async def test_depth_and_due_date_of_an_answered_question(make_app, settings, bank):
    answered = datetime(2026, 12, 1, tzinfo=UTC)
    Profile(profile_path(settings)).record(
        [attempt("algo-07", answered, 2, [bank["algo-07"].key_points[0].id], session="earlier")],
        bank,
    )
    due = Profile(profile_path(settings)).history().cards["algo-07"].due
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        library = await open_library(pilot)
        table = library.query_one("#library-questions", DataTable)
        row = cells(table, "algo-07")
        assert (row[1], row[2]) == ("2/4", due.date().isoformat())
        assert cells(table, "algo-08")[1:3] == ["-", "-"]


async def test_drill_this_now_from_the_list_opens_on_the_missed_key_point(make_app, settings, bank):
    question = bank["algo-07"]
    lowest = sorted(question.key_points, key=lambda kp: kp.level)
    Profile(profile_path(settings)).record(
        [attempt("algo-07", datetime(2026, 12, 1, tzinfo=UTC), 1, [lowest[0].id], session="earlier")],
        bank,
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_library(pilot)
        await pilot.press(*"clip", "down", "d")
        await wait_until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the drill")
        await wait_until(pilot, lambda: interviewer_turns(app.screen), "the drill's opener")
        await settle(pilot)
        assert interviewer_turns(app.screen)[0].raw == lowest[1].probe.en


async def test_your_questions_are_marked_and_a_broken_one_is_named(make_app, tmp_path, monkeypatch, bank):
    folder = tmp_path / "mine"
    write_user_question(
        folder, "my-reward-hacking", like="algo-10", note="## Reward hacking\n\nThe policy games the judge."
    )
    broken = write_user_question(folder, "my-broken")
    break_field(broken, "difficulty: ", "difficulty: 9 #")
    monkeypatch.setenv("RL_INTERVIEW_BANK_PATHS", str(folder))
    from common.settings import load_settings

    app = make_app(bank=None)  # loaded from the settings, with the user's questions
    app.settings = load_settings()
    async with app.run_test(size=SIZE) as pilot:
        library = await open_library(pilot)
        table = library.query_one("#library-questions", DataTable)
        assert cells(table, "my-reward-hacking")[3] == "yours"
        assert cells(table, "algo-07")[3] == ""
        assert "my-broken" not in rows(table)
        notice = str(library.query_one("#library-problems", Static).render())
        assert f"{broken}:" in notice and "field difficulty" in notice
        await pilot.press(*"my-reward", "down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "your question")
        await settle(pilot)
        rubric = markdown_source(app.screen, "#rubric-text")
        assert "your question" in rubric and "scored on its cue phrases alone" in rubric
        await pilot.press("n")
        await settle(pilot)
        assert markdown_source(app.screen, "#note-text").startswith("# Notes on my-reward-hacking")


async def test_l_is_in_the_command_palette_of_home(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert isinstance(app.screen, HomeScreen)
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert "Library" in commands
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Library", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, LibraryScreen), "the library from the palette")


async def test_at_100_columns_a_long_question_ends_in_an_ellipsis_on_screen(make_app, bank):
    """The question column ran off the right edge, cut with nothing to say so."""
    app = make_app()
    async with app.run_test(size=(100, 60)) as pilot:
        await open_library(pilot)
        lines = screen_text(app).splitlines()
    prompt = bank["algo-07"].prompt.en
    row = next(line for line in lines if line.split()[:1] == ["algo-07"]).rstrip(" ▊▎▅▁▔")
    assert len(prompt) > 100
    assert row.endswith("…") and prompt[:20] in row


async def test_a_search_hit_shows_the_notes_bold_as_plain_text(make_app):
    """A hit showed the note's Markdown as it is: "**Dual-clip PPO**"."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        library = await open_library(pilot)
        await pilot.press("slash", *"dual-clip", "enter")
        await wait_until(pilot, lambda: library.hits, "the search hits")
        await settle(pilot)
        assert any("**Dual-clip PPO**" in hit.text for hit in library.hits), "the case this test is about"
        shown = screen_text(app)
    assert "Dual-clip PPO" in shown and "**" not in shown


async def test_a_chinese_search_without_a_store_finds_the_question_s_notes_and_says_so_in_chinese(make_app, bank):
    """The notes are English: before `kb build` a trial's "重要性采样" found nothing, and the reason
    came in English on a Chinese screen."""
    assert "重要性采样" in bank["algo-04"].prompt.zh
    app = make_app(lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        library = await open_library(pilot)
        await pilot.press(*"重要性采样", "enter")
        await wait_until(pilot, lambda: library.hits, "the search hits")
        await settle(pilot)
        assert "algo-04" in [hit.question_id for hit in library.hits[:3]]
        said = str(library.query_one("#library-search-note", Static).render())
        assert "知识库还没有构建" in said and "not built" not in said, said
