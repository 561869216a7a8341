"""A minimal PEP 517 backend that packs ``tisink_memory_sink.py`` into a wheel with stdlib only.

It reads the name, version and entry points from ``pyproject.toml`` so the installed metadata
is exactly what the project table declares; that metadata is what ``importlib.metadata`` (and so
``sink.registry``) reads after ``pip install``.
"""

from __future__ import annotations

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULES = ("tisink_memory_sink.py",)


def _project() -> dict:
    return tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _dist_info_files() -> tuple[str, dict[str, str]]:
    project = _project()
    name = project["name"].replace("-", "_")
    dist_info = f"{name}-{project['version']}.dist-info"
    metadata = (
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
        f"Summary: {project['description']}\nRequires-Python: {project['requires-python']}\n"
    )
    wheel = (
        "Wheel-Version: 1.0\nGenerator: wheel_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    entry_points = ""
    for group, entries in project.get("entry-points", {}).items():
        entry_points += f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items())
    files = {"METADATA": metadata, "WHEEL": wheel, "entry_points.txt": entry_points}
    return dist_info, files


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def get_requires_for_build_wheel(config_settings: dict | None = None) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: dict | None = None
) -> str:
    dist_info, files = _dist_info_files()
    target = Path(metadata_directory) / dist_info
    target.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (target / name).write_text(text, encoding="utf-8")
    return dist_info


def build_wheel(
    wheel_directory: str,
    config_settings: dict | None = None,
    metadata_directory: str | None = None,
) -> str:
    dist_info, files = _dist_info_files()
    wheel_name = f"{dist_info.removesuffix('.dist-info')}-py3-none-any.whl"
    record = ""
    with zipfile.ZipFile(Path(wheel_directory) / wheel_name, "w") as wheel:
        for module in MODULES:
            data = (HERE / module).read_bytes()
            wheel.writestr(module, data)
            record += _record_line(module, data)
        for name, text in files.items():
            path = f"{dist_info}/{name}"
            wheel.writestr(path, text)
            record += _record_line(path, text.encode())
        record += f"{dist_info}/RECORD,,\n"
        wheel.writestr(f"{dist_info}/RECORD", record)
    return wheel_name
