"""Ratios written upside down, read by the formula's shape (cue phrases cannot say these: the same
ratio is right elsewhere in the formula or under another expectation).

- An importance weight inside its expectation: "E_p[f(x)] = E_q[f(x) q(x)/p(x)]" (blind trial 36,
  credited as the identity it reverses). Whatever the letters, the weight under E_s[...] is the
  target over the sampler s: a ratio inside E_s[...] with s on top and another distribution below is
  the wrong way round (E_p[f q/p] = E_q[f] is right).
- DPO's implicit reward with the reference on top: "r̂(x,y) = β·log[π_ref(y|x) / π_θ(y|x)] + β·log Z(x)"
  (blind trial 37, credited as the implicit-reward point). Only where the reward is that term: after
  "=" or "is", not "r + β log(π_ref/π_θ)", the KL-shaped reward of RLHF, which is right."""

from __future__ import annotations

import re

from knowledge.facts import REVERSED_DPO_REWARD, REVERSED_WEIGHT

EXPECTATION = re.compile(
    r"(?<![a-z0-9])(?:e|𝔼)_\{?(?P<s>[a-zπμ][a-zθ_]*?)\}?\s*\[(?P<inside>[^\[\]]*)\]", re.IGNORECASE
)
"""E_q[...], E_{q}[...], 𝔼_π_old[...]: the sampler, then what is averaged (no nested brackets)."""
RATIO = re.compile(
    r"(?P<top>[a-zπμ][a-zθ_]*?)\s*(?:\([^()]*\))?\s*/\s*(?P<bottom>[a-zπμ][a-zθ_]*?)\s*(?:\([^()]*\))?(?![a-z_])",
    re.IGNORECASE,
)

LOG = re.compile(r"\b(?:log|ln)\s*\(?\s*$", re.IGNORECASE)
CONDITION = r"\s*(?:\([^()]*\))?\s*"
REFERENCE = r"(?:π|pi)_?\{?(?:ref|sft)\}?"
POLICY = r"(?:π|pi)(?:_?\{?(?:θ|theta)\}?)?(?![a-z_])"
REWARD_IS_REFERENCE_OVER_POLICY = re.compile(
    rf"(?:=|:|：|\bis|是|为)\s*(?:β|beta)\s*[·*×⋅]?\s*(?:log|ln)\s*[\[(]?\s*{REFERENCE}{CONDITION}/\s*{POLICY}{CONDITION}",
    re.IGNORECASE,
)
"""The reward stated as β log(π_ref/π_θ): the reference over the policy, right after "=" or "is"."""


def upside_down(sentence: str) -> list[str]:
    """The wrong claims (as ids) of the ratios this sentence writes the wrong way round."""
    return upside_down_weights(sentence) + upside_down_rewards(sentence)


def upside_down_rewards(sentence: str) -> list[str]:
    return [REVERSED_DPO_REWARD] if REWARD_IS_REFERENCE_OVER_POLICY.search(sentence) else []


def upside_down_weights(sentence: str) -> list[str]:
    """The wrong claim (as its id) if the sentence writes an importance weight with the sampler on top."""
    for expectation in EXPECTATION.finditer(sentence):
        sampler = expectation["s"].lower()
        inside = expectation["inside"]
        for ratio in RATIO.finditer(inside):
            top, bottom = ratio["top"].lower(), ratio["bottom"].lower()
            # E_π[log π/π_ref] is a KL, not a weight
            if top == sampler and bottom != sampler and not LOG.search(inside[: ratio.start()]):
                return [REVERSED_WEIGHT]
    return []
