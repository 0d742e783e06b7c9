"""Home's choices (length, sections, language), kept between runs in `home.json` under the data
folder: a trial's candidate picked 中文 and three questions, relaunched, and pressed Enter on a
six-question English session they had not meant to start. What the command line asks for wins."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent.planning import PlanRequest
from common.settings import Lang
from common.whole_files import write_whole

CHOICES_FILE = "home.json"


class HomeChoices(BaseModel):
    model_config = ConfigDict(extra="ignore")  # a later release's choices do not stop this one

    questions: int | None = Field(default=None, ge=1, le=35)
    section: Literal["algorithm", "infrastructure", "both"] | None = None
    lang: Lang | None = None


def load_choices(home: Path) -> tuple[HomeChoices, str | None]:
    """The choices last made on Home, and what was wrong with the file if it could not be read
    (then none: Home starts from the defaults, and the next choice writes the file anew)."""
    path = home / CHOICES_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return HomeChoices(), None
    except (OSError, UnicodeDecodeError) as exc:
        return HomeChoices(), f"{path}: {exc}"
    try:
        return HomeChoices.model_validate_json(text), None
    except ValidationError as exc:
        error = exc.errors()[0]
        where = f"field {'.'.join(str(p) for p in error['loc'])}: " if error["loc"] else ""
        return HomeChoices(), f"{path}: {where}{error['msg']}"


def save_choices(home: Path, choices: HomeChoices) -> str | None:
    """Keep Home's choices for the next run; why they could not be kept, if so."""
    try:
        home.mkdir(parents=True, exist_ok=True)
        write_whole(home / CHOICES_FILE, choices.model_dump_json(exclude_none=True))
    except OSError as exc:
        return f"{home / CHOICES_FILE}: {exc}"
    return None


def with_remembered(
    choices: HomeChoices, request: PlanRequest, lang: Lang | None, explicit: bool
) -> tuple[PlanRequest, Lang | None]:
    """The request and language Home opens on: the command line's where it named them (`explicit`
    for the plan, `lang` for the language), else the choices remembered, else the request's own
    (the config's defaults)."""
    if not explicit and not request.ids and request.topic is None:
        update = {"questions": choices.questions, "section": choices.section}
        request = request.model_copy(update={k: v for k, v in update.items() if v is not None})
    return request, lang or choices.lang
