"""`rl-interview doctor`: check the model configuration with one tiny call and say what is wrong.

Every outcome is one plain sentence (no key, wrong base URL or connection refused, model not found,
timeout, ...), never a traceback, and never the key itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from agent.brains.llm.client import INSTALL_HINT, LLMFailure, ModelClient, litellm_installed, litellm_module
from common.settings import LLMSettings

PING = [{"role": "user", "content": "Reply with the single word OK."}]
KEY_SETTING = "RL_INTERVIEW_LLM__API_KEY"


@dataclass(frozen=True)
class Diagnosis:
    ok: bool
    message: str


async def diagnose(settings: LLMSettings) -> Diagnosis:
    if not settings.model:
        return Diagnosis(
            False,
            "no model configured: pass --model PROVIDER/NAME (e.g. openai/gpt-4o-mini) or set RL_INTERVIEW_LLM__MODEL",
        )
    if not litellm_installed():
        return Diagnosis(False, INSTALL_HINT)
    litellm = await litellm_module()
    where = f"{settings.model}" + (f" at {settings.api_base}" if settings.api_base else "")
    try:
        litellm.get_llm_provider(model=settings.model, api_base=settings.api_base)
    except Exception:  # litellm cannot tell which provider the name belongs to
        return Diagnosis(
            False,
            f"litellm does not know the provider of {settings.model!r}: write the model as "
            "PROVIDER/NAME, e.g. openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, "
            "ollama/llama3.1",
        )
    missing = _missing_keys(litellm, settings)
    if missing:
        return Diagnosis(False, f"no API key for {settings.model}: set {' or '.join(missing)} (or {KEY_SETTING})")
    quick = settings.model_copy(update={"retries": 0})
    try:
        reply = await ModelClient(quick).complete(PING, max_tokens=5)
    except LLMFailure as failure:
        return Diagnosis(False, _advice(failure, quick, where))
    usage = reply.usage
    cost = "price unknown (a local or unlisted model)" if usage.cost_usd is None else f"${usage.cost_usd:.6f}"
    return Diagnosis(
        True,
        f"ok: {where} replied in {usage.latency_ms:.0f} ms "
        f"({usage.tokens_in} tokens in, {usage.tokens_out} out, {cost})",
    )


def _missing_keys(litellm: ModuleType, settings: LLMSettings) -> list[str]:
    """Key variables the provider needs that are not set (base URLs are not keys: they have defaults)."""
    if settings.api_key is not None:
        return []
    try:
        found = litellm.validate_environment(model=settings.model, api_base=settings.api_base)
    except Exception:  # litellm could not tell; the call itself will say
        return []
    return [name for name in found.get("missing_keys", []) if name.endswith(("_KEY", "_TOKEN"))]


def _advice(failure: LLMFailure, settings: LLMSettings, where: str) -> str:
    detail = f" (the provider said: {failure.detail})" if failure.detail else ""
    base = settings.api_base or "the provider's default address"
    advice = {
        "no_key": f"no API key for {settings.model}: set the provider's key variable or {KEY_SETTING}",
        "auth": f"{where}: the provider refused the key; check it, or {KEY_SETTING}{detail}",
        "connection": f"cannot connect to {base}: is the server running and is the base URL right? "
        "(OpenAI-compatible servers usually end in /v1)",
        "not_found": f"{where}: not found (404): the model name is wrong, or the base URL is missing a path "
        f"such as /v1{detail}",
        "timeout": f"{where}: no reply within {settings.timeout_s:g} s: the server is slow or unreachable "
        "(raise RL_INTERVIEW_LLM__TIMEOUT_S, or check --api-base)",
        "rate_limit": f"{where}: rate limited or out of quota (429){detail}",
        "bad_request": f"{where}: the provider refused the request{detail}",
        "server": f"{where}: the provider failed{detail}",
    }
    return advice.get(failure.kind, f"{where}: {failure.reason}{detail}")
