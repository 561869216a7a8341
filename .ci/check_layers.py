#!/usr/bin/env python3
"""Fail on an import that goes up the layer stack, or on a top-level package with no floor.

The floors are the project's own: ``[tool.tisink.layers] floors`` in pyproject.toml, lowest
first. A package may import itself and packages on lower floors, named bare (``codec.simple``)
or under the installed package (``tisink.codec.simple``). Every import counts, also those
inside functions or under ``TYPE_CHECKING``: a type-only upward import is still a dependency a
reader has to know about.

Usage: check_layers.py [PROJECT_ROOT]   (default: the current directory). Exit 1 on a problem.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

# folders with an __init__.py that are not layers of the library
NOT_LAYERS = frozenset({"tests", "examples", "docs", "build", "dist"})


def read_floors(root: Path) -> list[str]:
    """The floor list of pyproject.toml; a missing or malformed one is an error."""
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    floors = data.get("tool", {}).get("tisink", {}).get("layers", {}).get("floors")
    if not (isinstance(floors, list) and floors and all(isinstance(f, str) for f in floors)):
        raise SystemExit("pyproject.toml: [tool.tisink.layers] floors must list the packages")
    if len(set(floors)) != len(floors):
        raise SystemExit("pyproject.toml: [tool.tisink.layers] floors names a package twice")
    return floors


def layer_of(module: str, rank: dict[str, int]) -> str:
    """``codec.x`` and ``tisink.codec.x`` are both on ``codec``'s floor."""
    parts = module.split(".")
    if parts[0] == "tisink" and len(parts) > 1 and parts[1] in rank:
        return parts[1]
    return parts[0]


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every absolute import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def problems(root: Path) -> tuple[list[str], list[str]]:
    floors = read_floors(root)
    rank = {name: i for i, name in enumerate(floors)}
    found: list[str] = []
    for folder in sorted(root.iterdir()):
        if (
            folder.is_dir()
            and not folder.is_symlink()
            and not folder.name.startswith(".")
            and (folder / "__init__.py").is_file()
            and folder.name not in rank
            and folder.name not in NOT_LAYERS
        ):
            found.append(
                f"{folder.name}/: a top-level package on no floor; "
                "add it to [tool.tisink.layers] floors in pyproject.toml"
            )
    for package in floors:
        if not (root / package).is_dir():
            found.append(f"{package}: named in [tool.tisink.layers] floors but not a folder")
            continue
        for path in sorted((root / package).rglob("*.py")):
            for line, module in imports(path):
                target = layer_of(module, rank)
                if target in rank and rank[target] > rank[package]:
                    found.append(
                        f"{path.relative_to(root)}:{line}: {package} (floor {rank[package]}) "
                        f"imports {module} on {target} (floor {rank[target]})"
                    )
    return found, floors


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else ".").resolve()
    found, floors = problems(root)
    for problem in found:
        print(problem)
    if found:
        print(f"{len(found)} layer problem(s); floors, lowest first: {', '.join(floors)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
