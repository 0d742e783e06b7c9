"""Settings: TOML file problems are located, unknown fields refused, environment variables read."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from common.settings import Settings, SettingsError, config_path, load_settings
from knowledge.store import KnowledgeStore


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "config.toml"
    monkeypatch.setenv("RL_INTERVIEW_CONFIG", str(path))

    def write_config(text: str) -> Path:
        path.write_text(text, encoding="utf-8")
        return path

    return write_config


def test_defaults_without_a_config_file(isolated_env):
    settings = load_settings()
    assert settings.home == isolated_env
    assert settings.store_dir == isolated_env / "store"
    assert settings.chroma_url is None
    assert not config_path().exists()


def test_config_path_defaults_to_home(monkeypatch, isolated_env):
    monkeypatch.delenv("RL_INTERVIEW_CONFIG")
    assert config_path() == isolated_env / "config.toml"


def test_valid_toml_is_read(config, tmp_path):
    config('[knowledge]\nchunk_tokens = 200\nsources = ["/srv/docs"]\n\n[interview]\nlang = "zh"\n')
    settings = load_settings()
    assert settings.knowledge.chunk_tokens == 200
    assert settings.knowledge.sources == [Path("/srv/docs")]
    assert settings.interview.lang == "zh"


def test_toml_syntax_error_names_file_and_line(config):
    path = config('[knowledge]\nchunk_tokens = 200\n[interview\nlang = "zh"\n')
    with pytest.raises(SettingsError) as raised:
        load_settings()
    message = str(raised.value)
    assert str(path) in message
    assert "line 3" in message


def test_toml_that_is_not_utf8_names_the_file(config, tmp_path):
    path = config("")
    path.write_bytes('[knowledge]\nsources = ["/home/jürgen"]\n'.encode("latin-1"))
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert str(path) in str(raised.value)
    assert "UTF-8" in str(raised.value)


@pytest.mark.parametrize(
    "text,field",
    [
        ("colour = 'blue'\n", "colour"),
        ("[knowledge]\nembeding = 'hash'\n", "knowledge.embeding"),
        ("[llm]\ntemprature = 0.5\n", "llm.temprature"),
        ("[knowledge]\nchunk_tokens = 10\n", "knowledge.chunk_tokens"),  # out of range
    ],
)
def test_an_unknown_or_out_of_range_field_is_refused_by_name(config, text, field):
    path = config(text)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert field in str(raised.value)
    assert str(path) in str(raised.value)


def test_chroma_url_from_environment(monkeypatch):
    monkeypatch.setenv("RL_INTERVIEW_CHROMA_URL", "http://127.0.0.1:8123")
    settings = load_settings()
    assert settings.chroma_url == "http://127.0.0.1:8123"
    assert KnowledgeStore(settings).location == "http://127.0.0.1:8123"


def test_environment_beats_the_file(monkeypatch, config):
    config('chroma_url = "http://file:1"\n[knowledge]\nchunk_tokens = 100\n')
    monkeypatch.setenv("RL_INTERVIEW_CHROMA_URL", "http://env:2")
    monkeypatch.setenv("RL_INTERVIEW_KNOWLEDGE__CHUNK_TOKENS", "150")
    settings = load_settings()
    assert settings.chroma_url == "http://env:2"
    assert settings.knowledge.chunk_tokens == 150


def test_nested_environment_variable(monkeypatch):
    monkeypatch.setenv("RL_INTERVIEW_INTERVIEW__QUESTIONS", "3")
    assert load_settings().interview.questions == 3


def test_bad_environment_value_is_a_settings_error(monkeypatch):
    monkeypatch.setenv("RL_INTERVIEW_INTERVIEW__QUESTIONS", "many")
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert "interview.questions" in str(raised.value)


def test_api_key_is_not_shown(monkeypatch):
    monkeypatch.setenv("RL_INTERVIEW_LLM__API_KEY", "sk-very-secret")
    settings = load_settings()
    assert "sk-very-secret" not in repr(settings)
    assert settings.llm.api_key.get_secret_value() == "sk-very-secret"


def test_settings_are_frozen():
    settings = Settings()
    with pytest.raises(ValidationError):
        settings.chroma_url = "http://x"  # type: ignore[misc]


def test_cli_with_broken_config_prints_the_location_without_traceback(config):
    from tui.cli import app

    path = config("[knowledge\n")
    result = CliRunner().invoke(app, ["kb", "status"])
    assert result.exit_code == 1
    assert str(path) in result.output
    assert "line 1" in result.output
    assert "Traceback" not in result.output
