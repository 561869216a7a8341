#!/usr/bin/env python3
"""Fail on an import cycle among tisink's modules.

Every import counts: module-level ones, those inside functions and those under
``if TYPE_CHECKING:``. A cycle of module-level imports breaks whichever module of it a user
imports first; one closed by a deferred or type-only import still ties the modules together
(neither can be read, tested or moved without the other), which is what a reader trips on.

Usage: check_cycles.py [PROJECT_ROOT]   (default: the current directory). Exit 1 on a cycle,
one line per cycle.
"""

import ast
import sys
import tomllib
from pathlib import Path


def layers(root: Path) -> list[str]:
    """The packages of ``[tool.tisink.layers] floors`` in pyproject.toml."""
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    return list(data["tool"]["tisink"]["layers"]["floors"])


def module_of(path: Path) -> str:
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts if parts[0] == "tisink" else ["tisink", *parts])


def imported(tree: ast.Module, modules: set[str]) -> set[str]:
    """The tisink modules a file imports anywhere in it, under their ``tisink.`` name."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # ``from package import submodule`` needs the submodule, not the package's
            # names (the package is already loading)
            subs = {f"{node.module}.{a.name}" for a in node.names} & modules
            found.update(subs)
            if len(subs) < len(node.names):
                found.add(node.module)
    # a top-level package may be named bare (``codec.x``) as well as ``tisink.codec.x``
    return {n if n.split(".")[0] == "tisink" else f"tisink.{n}" for n in found}


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    files = {
        module_of(path.relative_to(root)): path
        for layer in layers(root)
        for path in sorted((root / layer).rglob("*.py"))
    }
    modules = set(files) | {name.removeprefix("tisink.") for name in files}
    graph = {
        module: imported(ast.parse(path.read_text(encoding="utf-8")), modules)
        & set(files) - {module}
        for module, path in files.items()
    }
    cycles = _strongly_connected(graph)
    for cycle in cycles:
        print("import cycle: " + " -> ".join(sorted(cycle)))
    print(f"imports: {len(graph)} modules, {len(cycles)} cycles")
    return 1 if cycles else 0


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm; components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    sys.setrecursionlimit(10_000)

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in graph:
        if node not in index:
            visit(node)
    return found


if __name__ == "__main__":
    sys.exit(main())
