"""What the brains' tests share: the scripted OpenAI-compatible provider on 127.0.0.1."""

import pytest

from evals.scripted_provider import LLMServer


@pytest.fixture
def server():
    """A scripted provider for one test, stopped after it."""
    running = LLMServer()
    yield running
    running.stop()
