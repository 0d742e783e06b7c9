"""Inline LaTeX ($...$) made readable in a terminal: Greek letters, operators, sub- and superscripts
as Unicode. Not a TeX engine: it covers what interview formulas use and leaves the rest as written."""

from __future__ import annotations

import re
from collections.abc import Callable

SYMBOLS = {
    r"\alpha": "α",
    r"\beta": "β",
    r"\gamma": "γ",
    r"\delta": "δ",
    r"\epsilon": "ε",
    r"\varepsilon": "ε",
    r"\eta": "η",
    r"\theta": "θ",
    r"\lambda": "λ",
    r"\mu": "μ",
    r"\pi": "π",
    r"\rho": "ρ",
    r"\sigma": "σ",
    r"\tau": "τ",
    r"\phi": "φ",
    r"\psi": "ψ",
    r"\omega": "ω",
    r"\Delta": "Δ",
    r"\Sigma": "Σ",
    r"\Pi": "Π",
    r"\nabla": "∇",
    r"\sum": "Σ",
    r"\prod": "∏",
    r"\int": "∫",
    r"\infty": "∞",
    r"\partial": "∂",
    r"\cdot": "·",
    r"\times": "×",
    r"\leq": "≤",
    r"\le": "≤",
    r"\geq": "≥",
    r"\ge": "≥",
    r"\neq": "≠",
    r"\approx": "≈",
    r"\sim": "∼",
    r"\propto": "∝",
    r"\to": "→",
    r"\rightarrow": "→",
    r"\leftarrow": "←",
    r"\Rightarrow": "⇒",
    r"\in": "∈",
    r"\mid": "|",
    r"\|": "‖",
    r"\pm": "±",
    r"\log": "log",
    r"\exp": "exp",
    r"\min": "min",
    r"\max": "max",
    r"\arg": "arg",
    r"\mathbb{E}": "𝔼",
    r"\E": "𝔼",
    r"\left": "",
    r"\right": "",
    r"\,": " ",
    r"\;": " ",
    r"\quad": "  ",
    r"\!": "",
}
SUPERSCRIPT = str.maketrans("0123456789+-=()nikTt", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵏᵀᵗ")
SUBSCRIPT = str.maketrans("0123456789+-=()aeiojkrtvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢₒⱼₖᵣₜᵥₓ")
INLINE_MATH = re.compile(r"\$\$(.+?)\$\$|\$(?!\s)([^$\n]+?)(?<!\s)\$", re.DOTALL)


def _script(body: str, table: dict[int, int], marker: str) -> str:
    """Unicode super/subscript when every character has one, else the plain marked form."""
    if body and all(ord(ch) in table for ch in body):
        return body.translate(table)
    return f"{marker}{body}" if len(body) == 1 else f"{marker}({body})"


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    """A `re.sub` replacement that inserts `text` as it is (its backslashes are not escapes)."""
    return lambda _m: text


def _convert(expr: str) -> str:
    expr = re.sub(
        r"\\text\{([^}]*)\}|\\mathrm\{([^}]*)\}|\\operatorname\{([^}]*)\}",
        lambda m: next(g for g in m.groups() if g is not None),
        expr,
    )
    expr = re.sub(r"\\hat\{?([A-Za-z])\}?", lambda m: m.group(1) + "\u0302", expr)
    expr = re.sub(r"\\bar\{?([A-Za-z])\}?", lambda m: m.group(1) + "\u0304", expr)
    for name in sorted(SYMBOLS, key=len, reverse=True):
        expr = re.sub(re.escape(name) + r"(?![A-Za-z])", _literal(SYMBOLS[name]), expr)
    expr = re.sub(r"\^\{([^{}]*)\}|\^(\S)", lambda m: _script(m.group(1) or m.group(2), SUPERSCRIPT, "^"), expr)
    expr = re.sub(r"_\{([^{}]*)\}|_(\w)", lambda m: _script(m.group(1) or m.group(2), SUBSCRIPT, "_"), expr)
    previous = None
    while previous != expr:  # innermost first, so nested fractions unwind
        previous = expr
        expr = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", lambda m: f"({m.group(1)})/({m.group(2)})", expr)
        expr = re.sub(r"\\sqrt\{([^{}]*)\}", r"√(\1)", expr)
    return expr.replace("{", "").replace("}", "")


def latex_to_unicode(text: str) -> str:
    """Replace every inline/display math span with its Unicode reading; other text is untouched."""
    return INLINE_MATH.sub(lambda m: _convert(m.group(1) or m.group(2)), text)
