"""`pip install .` (the README's first line) installs a copy, not this tree: every data file the
packages read must be in `[tool.setuptools.package-data]`, or the installed program fails where the
tests, run on the tree, pass."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = {".py", ".pyc"}
PACKAGES = ("agent", "knowledge", "evals", "tui", "prompts", "common")


def _package_data() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["setuptools"]["package-data"]


def _shipped(relative: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatch(relative, g) and relative.count("/") == g.count("/") for g in globs)


def test_every_data_file_of_a_package_is_installed_with_it():
    package_data = _package_data()
    missing = []
    for package in PACKAGES:
        root, globs = ROOT / package, package_data.get(package, [])
        for path in root.rglob("*"):
            if not path.is_file() or path.suffix in CODE or "__pycache__" in path.parts:
                continue
            if not _shipped(path.relative_to(root).as_posix(), globs):
                missing.append(path.relative_to(ROOT).as_posix())
    assert missing == [], f"add these to [tool.setuptools.package-data]: {missing}"


def test_the_check_sees_a_file_no_pattern_covers():
    assert not _shipped("facts.yaml", ["bank/*.yaml", "*.md"])
    assert _shipped("facts.yaml", ["*.yaml"]) and not _shipped("bank/x.yaml", ["*.yaml"])
