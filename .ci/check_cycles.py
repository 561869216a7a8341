#!/usr/bin/env python3
"""Fail on an import cycle among tisink's modules at load time.

Only imports that run when a module loads count: module-level ones, not those under
``if TYPE_CHECKING:`` or inside functions. A cycle among them breaks whichever module of it a
user imports first."""

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


def load_time_imports(tree: ast.Module, modules: set[str]) -> set[str]:
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                # ``from package import submodule`` needs the submodule, not the package's
                # names (the package is already loading)
                subs = {f"{node.module}.{a.name}" for a in node.names} & modules
                found.update(subs)
                if len(subs) < len(node.names):
                    found.add(node.module)
            elif isinstance(node, ast.If):
                test = ast.unparse(node.test)
                if "TYPE_CHECKING" not in test:
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)

    visit(tree.body)
    return {name for name in found if name.startswith("tisink.")}


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    files = {
        module_of(path.relative_to(root)): path
        for layer in layers(root)
        for path in sorted((root / layer).rglob("*.py"))
    }
    modules = set(files)
    graph = {
        module: load_time_imports(ast.parse(path.read_text()), modules) & modules - {module}
        for module, path in files.items()
    }
    cycles = _strongly_connected(graph)
    for cycle in cycles:
        print("import cycle: " + " -> ".join(sorted(cycle)))
    print(f"imports: {len(graph)} modules, {len(cycles)} load-time cycles")
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
