"""Java programs' jars from Maven Central, resolved once into tisink's cache.

tisink starts real Java servers for tests and users (Apache Kafka, its tools, a schema
registry) without asking anyone to install them: ``mvn`` copies an artifact list and its
runtime dependencies into a folder of the cache. Maven writes into a temporary folder beside
the final one, which is renamed only when complete, so an interrupted download leaves no half
folder and two processes resolving at once both end with the same complete one. A folder that
holds its marker jar is complete, and a later use never runs Maven.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from tisink.run.errors import RunError

log = logging.getLogger(__name__)

DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
"""Pinned, so the resolution does not change with the Maven installed."""
MVN_TIMEOUT_S = 900.0
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_SUMMARY_CHARS = 600
_ING = {"resolve": "resolving", "build": "building"}
_ED = {"resolve": "resolved", "build": "built"}


class MavenError(RunError):
    """Jars could not be resolved; the message is one line naming what was wanted."""


class Artifact(NamedTuple):
    group: str
    artifact: str
    version: str

    def jar(self) -> str:
        """The file name Maven's dependency plugin gives its jar."""
        return f"{self.artifact}-{self.version}.jar"


def resolve_jars(folder: Path, artifacts: Sequence[Artifact], *, what: str, marker: str) -> Path:
    """``folder``, holding ``artifacts`` and their runtime dependencies; Maven runs only when
    ``marker`` (a jar's file name) is not in it yet. ``what`` names the jars in messages."""

    def copy_dependencies(staging: Path) -> list[str]:
        return [
            f"{DEPENDENCY_PLUGIN}:copy-dependencies",
            f"-DoutputDirectory={staging / 'jars'}",
            "-DincludeScope=runtime",
        ]

    return _staged(
        folder,
        pom(folder.name, artifacts),
        copy_dependencies,
        output="jars",
        marker=marker,
        what=what,
        doing="resolve",
    )


def build_with_maven(
    folder: Path,
    project: str,
    goals: Sequence[str],
    *,
    output: str,
    marker: str,
    what: str,
) -> Path:
    """``folder``, holding what Maven's ``goals`` on the pom ``project`` leave in ``output`` (a
    folder relative to the project's); Maven runs only when ``marker`` (a path relative to
    ``folder``) is not in it yet. For a program whose jars alone cannot run (a Quarkus
    application needs its build step); ``what`` names it in messages."""
    return _staged(
        folder,
        project,
        lambda _staging: list(goals),
        output=output,
        marker=marker,
        what=what,
        doing="build",
    )


def _staged(
    folder: Path,
    project: str,
    goals: Callable[[Path], list[str]],
    *,
    output: str,
    marker: str,
    what: str,
    doing: str,
) -> Path:
    """Run Maven on ``project`` in a temporary folder beside ``folder`` and rename its
    ``output`` to ``folder`` once complete (holding ``marker``); nothing when it already is."""
    if (folder / marker).is_file():
        return folder
    mvn = shutil.which("mvn")
    if mvn is None:
        raise MavenError(f"{_ING[doing]} {what} into {folder} needs Maven (mvn) on PATH")
    started = time.monotonic()
    log.info("%s %s with Maven into %s", _ING[doing], what, folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{folder.name}.", dir=folder.parent) as temp:
        staging = Path(temp)
        done = staging / output
        (staging / "pom.xml").write_text(project, encoding="utf-8")
        _run_maven(mvn, staging, goals(staging), what, doing)
        if not (done / marker).is_file():
            raise MavenError(f"Maven finished but {marker} is missing from {done}")
        try:
            done.rename(folder)
        except OSError as exc:
            if not (folder / marker).is_file():  # not another process winning the race
                raise MavenError(f"cannot move {what} into {folder}: {exc}") from exc
    log.info("%s %s into %s in %.1fs", _ED[doing], what, folder, time.monotonic() - started)
    return folder


def pom(name: str, artifacts: Sequence[Artifact]) -> str:
    """A pom with no code of its own: only the dependencies whose jars are wanted."""
    artifact_id = re.sub(r"[^A-Za-z0-9_.-]", "-", name).strip(".-") or "jars"
    lines = [
        "<?xml version='1.0' encoding='UTF-8'?>",
        "<project xmlns='http://maven.apache.org/POM/4.0.0'>",
        "  <modelVersion>4.0.0</modelVersion>",
        "  <groupId>tisink.embedded</groupId>",
        f"  <artifactId>{artifact_id}</artifactId>",
        "  <version>1</version>",
        "  <packaging>pom</packaging>",
        "  <dependencies>",
    ]
    for group, artifact, version in artifacts:
        lines.append(
            f"    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId>"
            f"<version>{version}</version></dependency>"
        )
    lines += ["  </dependencies>", "</project>", ""]
    return "\n".join(lines)


def _run_maven(mvn: str, staging: Path, goals: Sequence[str], what: str, doing: str) -> None:
    args = [
        mvn,
        "--batch-mode",
        "--quiet",
        "-Dstyle.color=never",
        "-f",
        str(staging / "pom.xml"),
        *goals,
    ]
    try:
        done = subprocess.run(
            args,
            cwd=staging,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=MVN_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise MavenError(f"Maven did not {doing} {what} within {MVN_TIMEOUT_S:g}s") from exc
    except OSError as exc:
        raise MavenError(f"cannot run Maven ({mvn}): {exc}") from exc
    if done.returncode != 0:
        output = (done.stdout + done.stderr).decode("utf-8", "replace")
        raise MavenError(
            f"Maven could not {doing} {what} (exit code {done.returncode}): {maven_summary(output)}"
        )


def maven_summary(output: str) -> str:
    """Maven's first error line (the rest is advice on re-running with -e and -X)."""
    lines = [_ANSI.sub("", line).strip() for line in output.splitlines()]
    errors = [line.removeprefix("[ERROR]").strip() for line in lines if "[ERROR]" in line]
    chosen = [line for line in errors if line] or [line for line in lines if line][-1:]
    text = " ".join((chosen[0] if chosen else "(no output)").split())
    return text if len(text) <= _SUMMARY_CHARS else text[: _SUMMARY_CHARS - 1] + "…"
