from __future__ import annotations

import pytest


@pytest.fixture
def settings(agent_home):
    """The settings of the test's own home (tests/conftest.py isolates every test)."""
    from common.settings import load_settings

    settings = load_settings()
    assert settings.home == agent_home
    return settings
