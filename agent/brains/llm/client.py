"""Calling a model through litellm, and turning every way a call can fail into one short reason.

litellm takes 6-8 s to import and, unless told otherwise, fetches a price list from the network at
import. So it is imported only when a model is configured, in a background thread (the TUI's event
loop never waits for it), with the local price list and its telemetry off. An offline session never
imports this module's litellm at all.

No error text from a provider reaches the user unscrubbed: a provider may echo the key it was sent.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

from common.settings import LLMSettings

LITELLM_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False"}
INSTALL_HINT = "the LLM brain needs litellm: pip install 'rl-interview[llm]'"
KEY_SHAPE = re.compile(r"\b(?:sk|rk|pk|key)-[A-Za-z0-9_\-*.]{6,}|\bBearer\s+\S+", re.IGNORECASE)
SECRET_ENV_NAME = re.compile(r"KEY|TOKEN|SECRET", re.IGNORECASE)


class LLMFailure(Exception):
    """A call that gave nothing usable. `reason` is short, key-free and fit to show the candidate."""

    def __init__(self, reason: str, usage: Usage | None = None, detail: str = "", kind: str = "other"):
        super().__init__(reason)
        self.reason = reason
        self.usage = usage or Usage()
        self.detail = detail
        """The provider's own words, scrubbed of keys (for `doctor`)."""
        self.kind = kind
        """See failure_kind."""


_Num = TypeVar("_Num", int, float)


@dataclass(frozen=True)
class Usage:
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None

    def __add__(self, other: Usage) -> Usage:
        def total(a: _Num | None, b: _Num | None) -> _Num | None:
            return None if a is None and b is None else (a or 0) + (b or 0)

        return Usage(
            total(self.tokens_in, other.tokens_in),
            total(self.tokens_out, other.tokens_out),
            total(self.cost_usd, other.cost_usd),
            total(self.latency_ms, other.latency_ms),
        )

    def as_fields(self) -> dict[str, Any]:
        return {
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd,
            "latency_ms": None if self.latency_ms is None else round(self.latency_ms, 1),
        }


@dataclass(frozen=True)
class Reply:
    text: str
    usage: Usage


def litellm_installed() -> bool:
    return importlib.util.find_spec("litellm") is not None


def _import_litellm() -> ModuleType:
    os.environ.update(LITELLM_ENV)
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banners on stdout
    litellm.drop_params = True  # a provider without e.g. response_format gets the call without it
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        logging.getLogger(name).setLevel(logging.CRITICAL)  # failures are reported by us, scrubbed
    return litellm


_loading: Future[ModuleType] | None = None
_loading_lock = threading.Lock()


def start_import() -> Future[ModuleType]:
    """Begin importing litellm in a background thread (once per process)."""
    global _loading
    with _loading_lock:
        if _loading is None:
            _loading = Future()
            threading.Thread(target=_load, args=(_loading,), name="import-litellm", daemon=True).start()
        return _loading


def _load(future: Future[ModuleType]) -> None:
    try:
        future.set_result(_import_litellm())
    except BaseException as exc:  # handed to whoever awaits the import
        future.set_exception(exc)


async def litellm_module() -> ModuleType:
    try:  # shielded: a caller cancelled while waiting (a turn's deadline) must not cancel the import for all
        return await asyncio.shield(asyncio.wrap_future(start_import()))
    except ImportError:
        raise LLMFailure("litellm is not installed", detail=INSTALL_HINT) from None


def scrub(text: str, settings: LLMSettings | None = None) -> str:
    """The text without the configured key, keys from the environment, or anything shaped like a key."""
    secrets = [v for k, v in os.environ.items() if SECRET_ENV_NAME.search(k) and len(v) >= 8]
    if settings and settings.api_key and settings.api_key.get_secret_value():
        secrets.append(settings.api_key.get_secret_value())
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "[key hidden]")
    return KEY_SHAPE.sub("[key hidden]", text)


def failure_kind(exc: BaseException) -> str:
    """timeout, rate_limit, stream_cut, connection, no_key, auth, not_found, bad_request, server, other."""
    name = type(exc).__name__
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "Missing credentials" in str(exc) or "api_key client option" in str(exc):
        return "no_key"
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) or "Timeout" in names or "APITimeoutError" in names:
        return "timeout"
    if "MidStreamFallbackError" in names:
        return "stream_cut"
    if "RateLimitError" in names:
        return "rate_limit"
    if "AuthenticationError" in names or "PermissionDeniedError" in names:
        return "auth"
    if "NotFoundError" in names:
        return "not_found"
    if (
        "APIConnectionError" in names
        or "Connection error" in str(exc)
        or name in ("ConnectError", "ConnectionRefusedError")
    ):
        return "connection"
    if "BadRequestError" in names or "UnprocessableEntityError" in names:
        return "bad_request"
    if getattr(exc, "status_code", None) or "InternalServerError" in names or "ServiceUnavailableError" in names:
        return "server"
    return "other"


def failure_reason(exc: BaseException, settings: LLMSettings) -> str:
    """One short line saying why a call failed, for the transcript and the report."""
    kind = failure_kind(exc)
    status = getattr(exc, "status_code", None)
    return {
        "timeout": f"no reply within {settings.timeout_s:g} s",
        "stream_cut": "the reply stream was cut off",
        "rate_limit": "rate limited by the provider (429)",
        "no_key": "no API key for the provider",
        "auth": f"the provider refused the key ({status or 401})",
        "not_found": "model not found (404)",
        "connection": f"cannot reach {settings.api_base or 'the provider'}",
        "bad_request": f"the provider refused the request ({status or 400})",
        "server": f"provider error ({status or 'server'})",
    }.get(kind, f"model call failed ({type(exc).__name__})")


class ModelClient:
    """One configured model: a JSON reply, or a streamed text reply, with usage and cost."""

    def __init__(self, settings: LLMSettings):
        self.settings = settings
        start_import()

    async def ready(self) -> None:
        """Once litellm is imported (a one-time local cost, begun when the client was made)."""
        await litellm_module()

    def _params(self, messages: list[dict[str, str]], max_tokens: int) -> dict[str, Any]:
        s = self.settings
        params: dict[str, Any] = {
            "model": s.model,
            "messages": messages,
            "temperature": s.temperature,
            "timeout": s.timeout_s,
            "num_retries": s.retries,
            "max_tokens": max_tokens,
        }
        if s.api_base:
            params["api_base"] = s.api_base
        if s.api_key is not None:
            params["api_key"] = s.api_key.get_secret_value()
        return params

    def _structured(self, litellm: ModuleType, schema: dict[str, Any]) -> dict[str, Any]:
        """The request's `response_format` for the judge's schema (settings.llm.structured_output)."""
        mode = self.settings.structured_output
        if mode == "auto":
            mode = "json_schema" if _supports_schema(litellm, self.settings.model) else "none"
        if mode == "json_schema":
            return {"response_format": {"type": "json_schema", "json_schema": {"name": "assessment", "schema": schema}}}
        if mode == "json_object":
            return {"response_format": {"type": "json_object", "schema": schema}}
        return {}

    def _deadline(self) -> float:
        """Every attempt may take the full timeout, plus litellm's backoff between attempts."""
        return self.settings.timeout_s * (self.settings.retries + 1) + 2.0 * self.settings.retries

    async def complete(
        self, messages: list[dict[str, str]], *, schema: dict[str, Any] | None = None, max_tokens: int = 800
    ) -> Reply:
        """A whole reply; with `schema`, asked for as structured output where the provider supports it."""
        litellm = await litellm_module()
        params = self._params(messages, max_tokens)
        if schema is not None:
            params.update(self._structured(litellm, schema))
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self._deadline()):
                response = await litellm.acompletion(**params)
        except Exception as exc:
            raise self._failure(exc, started) from None
        usage = getattr(response, "usage", None)
        tokens_in, tokens_out = _tokens(usage)
        text = response.choices[0].message.content or ""
        return Reply(text, Usage(tokens_in, tokens_out, self._cost(litellm, tokens_in, tokens_out), _ms(started)))

    async def stream(
        self, messages: list[dict[str, str]], on_token: Callable[[str], None] | None, *, max_tokens: int = 300
    ) -> Reply:
        """A text reply passed on token by token; a stream that ends without finishing is a failure."""
        litellm = await litellm_module()
        params = self._params(messages, max_tokens) | {"stream": True, "stream_options": {"include_usage": True}}
        started = time.perf_counter()
        pieces: list[str] = []
        finished = False
        tokens_in = tokens_out = None
        try:
            async with asyncio.timeout(self._deadline()):
                async for chunk in await litellm.acompletion(**params):
                    if getattr(chunk, "usage", None):
                        tokens_in, tokens_out = _tokens(chunk.usage)
                    for choice in chunk.choices or []:
                        token = getattr(choice.delta, "content", None)
                        if token:
                            pieces.append(token)
                            if on_token is not None:
                                on_token(token)
                        finished = finished or bool(choice.finish_reason)
        except Exception as exc:
            raise self._failure(exc, started) from None
        usage = Usage(tokens_in, tokens_out, self._cost(litellm, tokens_in, tokens_out), _ms(started))
        if not finished:
            raise LLMFailure("the reply stream was cut off", usage, kind="stream_cut")
        return Reply("".join(pieces), usage)

    def _failure(self, exc: BaseException, started: float) -> LLMFailure:
        return LLMFailure(
            failure_reason(exc, self.settings),
            Usage(latency_ms=_ms(started)),
            detail=scrub(str(exc), self.settings)[:300],
            kind=failure_kind(exc),
        )

    def _cost(self, litellm: ModuleType, tokens_in: int | None, tokens_out: int | None) -> float | None:
        """litellm's price for these tokens; None for a model it has no price for (local models)."""
        if tokens_in is None and tokens_out is None:
            return None
        try:
            prompt, completion = litellm.cost_per_token(
                model=self.settings.model, prompt_tokens=tokens_in or 0, completion_tokens=tokens_out or 0
            )
        except Exception:  # litellm raises for models missing from its price list
            return None
        return float(prompt + completion)


def _supports_schema(litellm: ModuleType, model: str | None) -> bool:
    try:
        return bool(litellm.supports_response_schema(model=model))
    except Exception:  # unknown model: plain JSON, validated by us
        return False


def _tokens(usage: Any) -> tuple[int | None, int | None]:
    if usage is None:
        return None, None
    return getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
