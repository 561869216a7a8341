"""``.ci/check_layers.py``: the floors come from pyproject.toml; an upward import, a package on
no floor and a floor with no folder are each reported, and the repository itself is clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / ".ci" / "check_layers.py"


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, check=False
    )


def _project(root: Path, floors: list[str], files: dict[str, str]) -> Path:
    listed = ", ".join(f'"{f}"' for f in floors)
    (root / "pyproject.toml").write_text(f"[tool.tisink.layers]\nfloors = [{listed}]\n")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_repository_keeps_its_layers() -> None:
    result = _run(REPO)
    assert result.returncode == 0, result.stdout


def test_downward_and_own_imports_pass(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        ["low", "high"],
        {
            "low/__init__.py": "import low.x\n",
            "high/__init__.py": "from tisink.low import y\nimport high.z\n",
        },
    )
    assert _run(root).returncode == 0


@pytest.mark.parametrize("spelling", ["import high", "from tisink.high import x"])
def test_an_upward_import_is_reported_with_its_line(tmp_path: Path, spelling: str) -> None:
    root = _project(
        tmp_path,
        ["low", "high"],
        {
            "low/__init__.py": "",
            "low/deep/mod.py": f"def f():\n    {spelling}\n",
            "high/__init__.py": "",
        },
    )
    result = _run(root)
    assert result.returncode == 1
    assert "low/deep/mod.py:2: low (floor 0) imports" in result.stdout
    assert "on high (floor 1)" in result.stdout


def test_a_package_on_no_floor_is_reported(tmp_path: Path) -> None:
    root = _project(tmp_path, ["low"], {"low/__init__.py": "", "stray/__init__.py": ""})
    result = _run(root)
    assert result.returncode == 1
    assert "stray/: a top-level package on no floor" in result.stdout


def test_a_floor_without_a_folder_is_reported(tmp_path: Path) -> None:
    root = _project(tmp_path, ["low", "gone"], {"low/__init__.py": ""})
    result = _run(root)
    assert result.returncode == 1
    assert "gone: named in [tool.tisink.layers] floors but not a folder" in result.stdout


def test_no_floor_list_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    result = _run(tmp_path)
    assert result.returncode == 1
    assert "floors must list the packages" in result.stderr
