"""Home keeps its length, sections and language between runs (`home.json`); the command line wins.

A trial's candidate picked 中文 and three questions, relaunched, and Enter started a six-question
English session. Each app below is a new run over the same data folder."""

from __future__ import annotations

import json

from tui_helpers import SIZE, screen_text, settle, start, wait_loaded, wait_until

from agent.planning import PlanRequest
from tui.remembered import CHOICES_FILE, HomeChoices, load_choices, save_choices, with_remembered
from tui.screens.home import HomeScreen
from tui.widgets.choice import Choice


async def choose(pilot, choice_id: str, value: object) -> None:
    pilot.app.screen.query_one(f"#{choice_id}", Choice).value = value
    await settle(pilot)


def shown(app) -> tuple[object, object, object]:
    return tuple(app.screen.query_one(f"#{c}", Choice).value for c in ("length", "section", "lang"))


async def test_choices_made_on_home_are_there_at_the_next_run(make_app, home):
    first = make_app(request=PlanRequest(), lang=None, remember_choices=True)
    async with first.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert shown(first) == (6, "both", "en")
        await choose(pilot, "length", 3)
        await choose(pilot, "section", "infrastructure")
        await choose(pilot, "lang", "zh")
        assert json.loads((home / CHOICES_FILE).read_text())["questions"] == 3
        await choose(pilot, "length", 6)
        await choose(pilot, "length", 3)  # back and forth: the last choice is kept
    assert json.loads((home / CHOICES_FILE).read_text()) == {"questions": 3, "section": "infrastructure", "lang": "zh"}

    again = make_app(request=PlanRequest(), lang=None, remember_choices=True)
    async with again.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert isinstance(again.screen, HomeScreen)
        assert shown(again) == (3, "infrastructure", "zh")
        assert "3 道题" in screen_text(again) and "选好下面的设置" in screen_text(again)
        await start(pilot)
        row = again.services.index.get("tui-0001")
        assert row.lang == "zh" and len(row.plan) == 3
        assert all(q.startswith("infra-") for q in row.plan)


async def test_the_command_line_language_wins_over_the_remembered_one(make_app, home):
    save_choices(home, HomeChoices(questions=10, lang="zh"))
    app = make_app(request=PlanRequest(), lang="en", remember_choices=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert shown(app) == (10, "both", "en")
        assert "Press Enter" in screen_text(app)


async def test_an_unreadable_choices_file_is_named_and_home_starts_from_the_defaults(make_app, home):
    (home / CHOICES_FILE).write_text('{"questions": 3,\n "lang": "klingon"}', encoding="utf-8")
    app = make_app(request=PlanRequest(), lang=None, remember_choices=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        await wait_until(pilot, lambda: app._notifications, "a notification")
        told = " ".join(n.message for n in app._notifications)
        assert str(home / CHOICES_FILE) in told and "lang" in told and "defaults" in told
        assert shown(app) == (6, "both", "en")


def test_a_broken_file_names_where_it_broke(tmp_path):
    (tmp_path / CHOICES_FILE).write_text('{"questions": 3,\n "section": }', encoding="utf-8")
    choices, problem = load_choices(tmp_path)
    assert choices == HomeChoices()
    assert problem is not None and str(tmp_path / CHOICES_FILE) in problem and "line 2" in problem


def test_a_later_release_s_choices_still_load(tmp_path):
    (tmp_path / CHOICES_FILE).write_text('{"questions": 15, "theme": "nord"}', encoding="utf-8")
    assert load_choices(tmp_path) == (HomeChoices(questions=15), None)


def test_a_named_plan_is_not_changed_by_remembered_choices():
    remembered = HomeChoices(questions=3, section="algorithm", lang="zh")
    named = PlanRequest(ids=["infra-01"])
    assert with_remembered(remembered, named, None, explicit=True) == (named, "zh")
    on_topic = PlanRequest(topic="moe")
    assert with_remembered(remembered, on_topic, "en", explicit=False) == (on_topic, "en")
    plain = PlanRequest(questions=6, seed=4)
    request, lang = with_remembered(remembered, plain, None, explicit=False)
    assert (request.questions, request.section, request.seed, lang) == (3, "algorithm", 4, "zh")


def test_choices_that_cannot_be_kept_say_why(tmp_path):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("", encoding="utf-8")
    problem = save_choices(blocked, HomeChoices(lang="zh"))
    assert problem is not None and str(blocked / CHOICES_FILE) in problem


async def test_a_language_given_on_the_command_line_is_not_remembered_unless_chosen_on_home(make_app, home):
    """`rl-interview interview --lang zh` once: the next plain `rl-interview` opens on what was
    chosen on Home before, not on the flag (the lists report their first value as a change)."""
    save_choices(home, HomeChoices(questions=3, lang="en"))
    app = make_app(request=PlanRequest(), lang="zh", remember_choices=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        assert shown(app) == (3, "both", "zh")
    assert load_choices(home) == (HomeChoices(questions=3, lang="en"), None)
