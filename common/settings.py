"""Configuration: environment (prefix RL_INTERVIEW_, nested with __), a TOML file, defaults.

The TOML file is `$RL_INTERVIEW_CONFIG` if set, else `config.toml` inside the home folder.
Every file the product writes lives under `home`.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Annotated, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from common.errors import InputError

ENV_PREFIX = "RL_INTERVIEW_"


class SettingsError(InputError):
    """A settings file or variable that cannot be used; the message names the file/line or field."""


def default_home() -> Path:
    return Path(os.environ.get(f"{ENV_PREFIX}HOME") or platformdirs.user_data_dir("rl-interview"))


def config_path() -> Path:
    explicit = os.environ.get(f"{ENV_PREFIX}CONFIG")
    return Path(explicit) if explicit else default_home() / "config.toml"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class KnowledgeSettings(_Section):
    embedding: str = "e5"
    """Embedding backend for the store: e5 (offline multilingual, default), hash (tiny, for tests),
    minilm (needs the `minilm` extra), or `litellm:<model>` for an embedding API."""
    sources: list[Path] = Field(default_factory=list)
    """Extra files or folders indexed by `kb build` besides our reference notes."""
    chunk_tokens: int = Field(default=320, ge=64, le=480)
    """Upper bound of a chunk's size in model tokens (CJK characters count about one each)."""
    max_file_mb: float = Field(default=2.0, gt=0)
    """Files larger than this are skipped with a message."""


class JudgeSettings(_Section):
    embedding: Literal["e5", "hash", "off"] = "e5"
    """The offline judge by meaning: e5 (the default; its exemplar vectors ship with us), off (cue
    phrases only), or hash (kept so that earlier settings files load: the shipped heads read e5's
    vectors, so under hash the cue phrases judge alone, as with off)."""


class LLMSettings(_Section):
    model: str | None = None
    """litellm model name, e.g. openai/gpt-4o-mini; unset means the offline brain."""
    api_base: str | None = None
    api_key: SecretStr | None = None
    temperature: float = 0.2
    timeout_s: float = 60.0
    retries: int = 2
    turn_deadline_s: float = Field(default=20.0, gt=0)
    """One deadline for a whole candidate turn with the model (judging, repair, follow-up, every
    retry); past it the offline brain answers the turn, marked, and the next turn asks the model again."""
    max_cost: float | None = None
    """Per-session budget in USD; once spent the session continues on the offline brain."""
    structured_output: Literal["auto", "json_schema", "json_object", "none"] = "auto"
    """How the judge's reply is asked to follow its JSON schema: `auto`, OpenAI's `json_schema` where
    litellm knows the model supports it, else plain JSON checked by us; `json_object` sends the schema
    as `{"type": "json_object", "schema": ...}`, which local servers (llama.cpp's Python server)
    turn into a grammar, so even a tiny model writes valid JSON; `none` never asks."""


Lang = Literal["en", "zh"]
"""The languages the interviewer speaks (a candidate may answer in any mix)."""


class InterviewSettings(_Section):
    questions: int = Field(default=6, ge=1, le=35)
    max_follow_ups: int = Field(default=3, ge=0, le=6)
    max_hints: int = Field(default=2, ge=0, le=3)
    """Hints per question when the candidate is stuck, each a rung further up the key point's
    ladder (a gentle nudge first, an almost-answer last)."""
    lang: Lang = "en"
    review: Literal["each", "end"] = "each"
    """Show the question review after each question or all at the end."""
    answer_limit_chars: int = Field(default=20_000, ge=1_000)
    """Answers longer than this are saved whole but assessed on this prefix (with a note)."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_nested_delimiter="__", extra="forbid", frozen=True)

    home: Path = Field(default_factory=default_home)
    """Folder for every file we write: knowledge store, sessions, profile."""
    chroma_url: str | None = None
    """A Chroma server (`chroma run`) to use instead of the embedded store, e.g. http://127.0.0.1:8000."""
    bank_paths: Annotated[list[Path], NoDecode] = Field(default_factory=list)
    """Folders of your own questions in our format (`<id>.yaml`, and its note `<id>.md` beside it),
    added to ours. In RL_INTERVIEW_BANK_PATHS: a JSON list or paths joined with the path separator."""
    knowledge: KnowledgeSettings = KnowledgeSettings()
    judge: JudgeSettings = JudgeSettings()
    llm: LLMSettings = LLMSettings()
    interview: InterviewSettings = InterviewSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=config_path()),
        )

    @field_validator("bank_paths", mode="before")
    @classmethod
    def _split_paths(cls, value: object) -> object:
        if isinstance(value, str):
            if value.lstrip().startswith("["):
                try:
                    return json.loads(value)
                except ValueError:
                    raise ValueError(
                        f"{value!r} is neither a JSON list of paths nor paths joined with {os.pathsep!r}"
                    ) from None
            return [part for part in value.split(os.pathsep) if part.strip()]
        return value

    @property
    def store_dir(self) -> Path:
        return self.home / "store"

    @property
    def sessions_db(self) -> Path:
        return self.home / "sessions.sqlite"

    @property
    def reports_dir(self) -> Path:
        """Every finished session's report, as Markdown and JSON."""
        return self.home / "reports"


def llm_overrides(
    model: str | None = None, api_base: str | None = None, max_cost: float | None = None
) -> dict[str, object]:
    """Command-line model options as `load_settings` overrides: only those given, merged over the rest."""
    given = {k: v for k, v in (("model", model), ("api_base", api_base), ("max_cost", max_cost)) if v is not None}
    return {"llm": given} if given else {}


def load_settings(**overrides: object) -> Settings:
    """Build the settings once, turning every problem into a SettingsError with its location."""
    path = config_path()
    if path.exists():
        try:
            tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise SettingsError(f"{path}: invalid TOML: {exc}") from None
        except UnicodeDecodeError as exc:
            raise SettingsError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise SettingsError(f"settings ({path} or {ENV_PREFIX}* variables): {problems}") from None
