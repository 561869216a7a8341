"""``docs/ARCHITECTURE.md`` and ``docs/layout.md`` stay true to the tree: every repository path
they name in backticks exists, and their layer tables list pyproject.toml's floors, in order."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = ("docs/ARCHITECTURE.md", "docs/layout.md")
_CODE = re.compile(r"`([^`\s]+)`")
_SUFFIXES = (".py", ".md", ".toml", ".c", ".jsonl")
_FLOOR_ROW = re.compile(r"^\| (\d+) \| `([a-z_]+)/` \|", re.M)


def repo_paths(text: str) -> list[str]:
    """The backticked names that look like paths from the repository's root: with a ``/``, and
    a folder (ending in ``/``) or a file with a source or doc suffix. URIs, placeholders and
    globs are not paths; nor is a bare file name (``protocol.py`` of a folder named before)."""
    found = []
    for name in _CODE.findall(text):
        if "/" not in name or "://" in name or any(c in name for c in "<>*{}$~"):
            continue
        if name.endswith("/") or name.endswith(_SUFFIXES):
            found.append(name)
    return found


def floors() -> list[str]:
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return list(data["tool"]["tisink"]["layers"]["floors"])


@pytest.mark.parametrize("page", PAGES)
def test_every_named_path_exists(page: str) -> None:
    paths = repo_paths((REPO / page).read_text(encoding="utf-8"))
    assert len(paths) > 10, f"{page}: too few paths found; is the pattern still right?"
    missing = [p for p in paths if not (REPO / p).exists()]
    assert missing == [], f"{page} names paths the tree does not have"


@pytest.mark.parametrize("page", PAGES)
def test_the_layer_table_lists_the_floors_in_order(page: str) -> None:
    rows = _FLOOR_ROW.findall((REPO / page).read_text(encoding="utf-8"))
    assert [name for _, name in rows] == floors()
    assert [int(number) for number, _ in rows] == list(range(len(rows)))


def test_the_pattern_takes_paths_and_leaves_the_rest() -> None:
    text = "`feed/player.py`, `codec/`, `tisink.plugin`, `kafka://h/t.py`, `codec/<name>/`, `a.py`"
    assert repo_paths(text) == ["feed/player.py", "codec/"]
