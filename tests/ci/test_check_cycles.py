"""``.ci/check_cycles.py``: a cycle among a project's modules is reported, one line each, however
its imports are spelled (module level, inside a function, under ``TYPE_CHECKING``, bare or under
``tisink.``); a tree without one passes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / ".ci" / "check_cycles.py"

TYPE_ONLY = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tisink.low.a import A\n"


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, check=False
    )


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / "pyproject.toml").write_text('[tool.tisink.layers]\nfloors = ["low", "high"]\n')
    for name, text in {"low/__init__.py": "", "high/__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_repository_has_no_cycle() -> None:
    result = _run(REPO)
    assert result.returncode == 0, result.stdout


def test_a_tree_without_a_cycle_passes(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "low/a.py": "import tisink.low.b\n",
            "low/b.py": "def f():\n    from tisink.low import c\n",
            "low/c.py": "",
            "high/x.py": f"import low.a\n{TYPE_ONLY}",
        },
    )
    result = _run(root)
    assert result.returncode == 0, result.stdout
    assert "0 cycles" in result.stdout


@pytest.mark.parametrize(
    "closing",
    [
        pytest.param("def f() -> None:\n    from tisink.low.a import A\n", id="in-a-function"),
        pytest.param(TYPE_ONLY, id="type-checking"),
        pytest.param("import low.a\n", id="module-level-bare"),
    ],
)
def test_a_cycle_is_reported_however_it_is_closed(tmp_path: Path, closing: str) -> None:
    root = _project(
        tmp_path,
        {
            "low/a.py": "from tisink.low import b\nclass A: ...\n",
            "low/b.py": "from tisink.low.c import C\n",
            "low/c.py": f"{closing}class C: ...\n",
            "high/x.py": "import tisink.low.a\n",
        },
    )
    result = _run(root)
    assert result.returncode == 1
    cycles = [line for line in result.stdout.splitlines() if line.startswith("import cycle:")]
    assert cycles == ["import cycle: tisink.low.a -> tisink.low.b -> tisink.low.c"]
    assert "1 cycles" in result.stdout


def test_each_cycle_has_a_line(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "low/a.py": "def f():\n    import tisink.low.b\n",
            "low/b.py": "import tisink.low.a\n",
            "high/x.py": TYPE_ONLY.replace("low.a import A", "high.y import Y"),
            "high/y.py": "def g():\n    from tisink.high import x\n",
        },
    )
    result = _run(root)
    assert result.returncode == 1
    assert sorted(line for line in result.stdout.splitlines() if "cycle:" in line) == [
        "import cycle: tisink.high.x -> tisink.high.y",
        "import cycle: tisink.low.a -> tisink.low.b",
    ]
