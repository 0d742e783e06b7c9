"""The question's review (shown when a question closes): its references, its keys, its wording.

The interviewer is the real one (offline brain, our notes as references); expected texts come from
the bank and the notes, never from the code under test.
"""

from __future__ import annotations

from textual.widgets import Collapsible
from tui_helpers import screen_text, settle, skip_to_review, start


async def test_every_reference_title_is_read_in_full_at_80_columns(make_app):
    """The titles were one line each, cut at the right edge (badly below 120 columns)."""
    app = make_app(["algo-12"])
    async with app.run_test(size=(80, 200)) as pilot:
        await start(pilot)
        await skip_to_review(pilot)
        await settle(pilot)
        titles = [str(c.title) for c in app.screen.query(Collapsible)]
        shown = " ".join(screen_text(app).split())
    assert titles and all(t.startswith("notes/algo-12.md › ") for t in titles)
    assert "Choosing group size" not in " ".join(titles), "the note's own title is repeated in every section"
    for title in titles:
        assert title in shown, f"{title!r} is cut"
