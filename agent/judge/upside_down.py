"""An importance weight written upside down inside its expectation: "E_p[f(x)] = E_q[f(x) q(x)/p(x)]"
(blind trial 36, credited as the identity it reverses). Whatever the letters, the weight under
E_s[...] is the target over the sampler s: a ratio inside E_s[...] with s on top and another
distribution below is the wrong way round. Cue phrases cannot say this, since the same ratio is
right under the other expectation (E_p[f q/p] = E_q[f])."""

from __future__ import annotations

import re

from knowledge.facts import REVERSED_WEIGHT

EXPECTATION = re.compile(
    r"(?<![a-z0-9])(?:e|𝔼)_\{?(?P<s>[a-zπμ][a-zθ_]*?)\}?\s*\[(?P<inside>[^\[\]]*)\]", re.IGNORECASE
)
"""E_q[...], E_{q}[...], 𝔼_π_old[...]: the sampler, then what is averaged (no nested brackets)."""
RATIO = re.compile(
    r"(?P<top>[a-zπμ][a-zθ_]*?)\s*(?:\([^()]*\))?\s*/\s*(?P<bottom>[a-zπμ][a-zθ_]*?)\s*(?:\([^()]*\))?(?![a-z_])",
    re.IGNORECASE,
)

LOG = re.compile(r"\b(?:log|ln)\s*\(?\s*$", re.IGNORECASE)


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
