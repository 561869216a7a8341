"""The built wheel: pure Python (``py3-none-any``, no build step), one top-level import
package, ``tisink``, that works from a fresh venv.

The venv gets the wheel alone (``--no-deps``); its dependencies come from this test's own
environment through a path line, so the check stays offline and fast. Nothing of the checkout
is on that venv's path: ``import model`` must fail there, and a play must still work.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "feed" / "format" / "samples" / "demo.jsonl"


def _build_wheel(out: Path) -> Path:
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"),
            *("-q", "-w", str(out), str(REPO)),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob("tisink-*.whl")
    return wheel


def _fresh_venv(root: Path, wheel: Path) -> Path:
    venv.EnvBuilder(with_pip=False).create(root)
    python = root / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # dependencies from here, as a plain path: .pth files there (the checkout's editable
    # install) are not read, so the checkout stays off the new venv's path
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install", "-q"),
            *("--no-deps", str(wheel)),
        ],
        check=True,
        capture_output=True,
    )
    return python


def test_the_wheel_has_one_top_level_package_and_plays_from_a_fresh_venv(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path / "dist")
    assert wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = (n for n in names if n.endswith(".dist-info/WHEEL"))
        tags = archive.read(metadata).decode()
    assert "Root-Is-Purelib: true" in tags and "Tag: py3-none-any" in tags
    assert not [n for n in names if n.endswith((".so", ".pyd", ".c"))]
    tops = {name.split("/", 1)[0] for name in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"tisink"}

    python = _fresh_venv(tmp_path / "venv", wheel)
    work = tmp_path / "work"
    work.mkdir()
    probe = subprocess.run(
        [str(python), "-c", "import tisink.codec, sys; print(tisink.codec.__file__); import model"],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert probe.returncode != 0 and "No module named 'model'" in probe.stderr
    assert str(tmp_path / "venv") in probe.stdout

    out = tmp_path / "out"
    play = subprocess.run(
        [
            *(str(tmp_path / "venv" / "bin" / "tisink"), "play", "--engine", "inline"),
            *("--feed", str(SAMPLE), "--clock", "feed", "--summary-json", str(work / "s.json")),
            *("--sink-uri", f"file://{out}?protocol=simple&partition-num=2"),
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert play.returncode == 0, play.stderr[-3000:]
    summary = orjson.loads((work / "s.json").read_bytes())
    assert summary["rows"] > 0 and summary["verified"] is True
    assert sorted(p.name for p in (out / "tidb-cdc").glob("partition-*.jsonl")) == [
        "partition-0.jsonl",
        "partition-1.jsonl",
    ]
