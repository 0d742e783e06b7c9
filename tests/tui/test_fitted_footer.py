"""Every key stays in the footer on an 80-column terminal (a trial lost Home's "Library" and Quit,
and the Interview screen's "Leave", to the default spacing); wide, the palette's key is there too."""

from __future__ import annotations

import pytest
from tui_helpers import footer, start, wait_loaded

HOME = ("Start interview", "Resume", "History", "Drill weak spots", "Library", "Quit")
INTERVIEW = ("Send", "Hint", "Don't know", "Skip", "Repeat", "End", "Leave", "Quit")
HOME_ZH = ("开始面试", "继续上次", "历史记录", "专练弱项", "题库", "退出")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_home_and_interview_footers_show_every_key(make_app, size):
    app = make_app(["algo-07"])
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        row = footer(app)
        assert [key for key in HOME if key not in row] == [], row
        assert ("palette" in row) == (size[0] >= 90)
        await start(pilot)
        row = footer(app)
        assert [key for key in INTERVIEW if key not in row] == [], row


async def test_the_chinese_home_footer_fits_80_columns(make_app):
    app = make_app(["algo-07"], lang="zh")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        row = footer(app)
        assert [key for key in HOME_ZH if key not in row] == [], row
