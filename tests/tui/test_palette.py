"""The command palette (Ctrl+P): each of our commands says what it does, not its title again."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from tui_helpers import SIZE, wait_loaded, wait_until

import tui.screens
from tui.screens.base import AppScreen


def palette_screens() -> list[type[AppScreen]]:
    found = []
    for info in pkgutil.iter_modules(tui.screens.__path__, "tui.screens."):
        module = importlib.import_module(info.name)
        found += [
            cls
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, AppScreen) and cls.__module__ == module.__name__ and getattr(cls, "PALETTE", None)
        ]
    return found


def test_every_screen_s_commands_are_described():
    screens = palette_screens()
    assert len(screens) >= 8, "the scan found the screens with commands"
    bare = [
        f"{screen.__name__}: {binding.description}"
        for screen in screens
        for binding in screen.PALETTE
        if not binding.tooltip or binding.tooltip == binding.description
    ]
    assert bare == []


async def test_home_s_commands_in_the_palette_say_what_they_do(make_app):
    """The palette repeated each title as its description ("Drill weak spots / Drill weak spots")."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        ours = {b.description for b in app.screen.PALETTE}
        commands = {c.title: c.help for c in app.get_system_commands(app.screen) if c.title in ours}
        assert set(commands) == ours
        assert [title for title, said in commands.items() if not said or said == title] == []


async def test_the_palette_s_screenshot_is_saved_under_the_home_and_says_where(make_app, tmp_path):
    """Textual saves it to the user's Downloads folder, which many machines lack: a trial user only
    ever got "Failed to save screenshot"."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_loaded(pilot)
        [screenshot] = [c for c in app.get_system_commands(app.screen) if c.title == "Screenshot"]
        screenshot.callback()
        folder = app.settings.home / "screenshots"
        await wait_until(pilot, lambda: any(folder.glob("*.svg")), "the screenshot file")
        await wait_until(
            pilot, lambda: any(str(folder) in str(n.message) for n in app._notifications), "the notice of where"
        )
        [svg] = folder.glob("*.svg")
        assert svg.read_text(encoding="utf-8").lstrip().startswith("<svg")
