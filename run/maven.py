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
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from tisink.run.errors import RunError

log = logging.getLogger(__name__)

DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
"""Pinned, so the resolution does not change with the Maven installed."""
MVN_TIMEOUT_S = 900.0
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_SUMMARY_CHARS = 600


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
    if (folder / marker).is_file():
        return folder
    mvn = shutil.which("mvn")
    if mvn is None:
        raise MavenError(f"{what} are not in {folder} and resolving them needs Maven (mvn) on PATH")
    started = time.monotonic()
    log.info("resolving %s with Maven into %s", what, folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{folder.name}.", dir=folder.parent) as temp:
        staging = Path(temp)
        jars = staging / "jars"
        (staging / "pom.xml").write_text(pom(folder.name, artifacts), encoding="utf-8")
        _run_maven(mvn, staging, jars, what)
        if not (jars / marker).is_file():
            raise MavenError(f"Maven finished but {marker} is missing from {jars}")
        try:
            jars.rename(folder)
        except OSError as exc:
            if not (folder / marker).is_file():  # not another process winning the race
                raise MavenError(f"cannot move {what} into {folder}: {exc}") from exc
    log.info(
        "resolved %d jars (%s) in %.1fs",
        len(list(folder.glob("*.jar"))),
        what,
        time.monotonic() - started,
    )
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


def _run_maven(mvn: str, staging: Path, jars: Path, what: str) -> None:
    args = [
        mvn,
        "--batch-mode",
        "--quiet",
        "-Dstyle.color=never",
        "-f",
        str(staging / "pom.xml"),
        f"{DEPENDENCY_PLUGIN}:copy-dependencies",
        f"-DoutputDirectory={jars}",
        "-DincludeScope=runtime",
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
        raise MavenError(f"Maven did not resolve {what} within {MVN_TIMEOUT_S:g}s") from exc
    except OSError as exc:
        raise MavenError(f"cannot run Maven ({mvn}): {exc}") from exc
    if done.returncode != 0:
        output = (done.stdout + done.stderr).decode("utf-8", "replace")
        raise MavenError(
            f"Maven could not resolve {what} (exit code {done.returncode}): {maven_summary(output)}"
        )


def maven_summary(output: str) -> str:
    """Maven's first error line (the rest is advice on re-running with -e and -X)."""
    lines = [_ANSI.sub("", line).strip() for line in output.splitlines()]
    errors = [line.removeprefix("[ERROR]").strip() for line in lines if "[ERROR]" in line]
    chosen = [line for line in errors if line] or [line for line in lines if line][-1:]
    text = " ".join((chosen[0] if chosen else "(no output)").split())
    return text if len(text) <= _SUMMARY_CHARS else text[: _SUMMARY_CHARS - 1] + "…"
