"""A class-data-sharing archive of a local master's JVM, made by one play and used by the next.

Loading and verifying Spark's classes is most of the JVM's start-up CPU (about 13 of 15 CPU-s
on two busy cores); a dynamic CDS archive (JDK 13+) maps them ready-made instead (about 6).
The first play on a machine asks its JVM to write the archive when it exits
(``-XX:ArchiveClassesAtExit``) under a temporary name carrying the play's process id; a later
play promotes a finished one (its play has exited and it has not changed for a minute) to the
final name and starts its JVM with ``-XX:SharedArchiveFile``. The name carries the Spark
version, the java binary and the JVM options, so any change makes a new one; a JVM that cannot
use an archive starts without it (``-Xshare:auto``). ``TISINK_SPARK_CDS=0`` turns this off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import time
from pathlib import Path

from tisink.run.cache import cache_dir

CDS_ENV = "TISINK_SPARK_CDS"
QUIET = "-Xlog:cds*=off"
"""Writing an archive warns about every class it cannot hold (old bytecode, generated
accessors): nothing a user can act on."""
SETTLED_S = 60.0
"""How long a written archive must be unchanged before it is used (the JVM writes it after
the play's own process has exited)."""


def class_archive_option(jvm_options: str) -> str:
    """The JVM option that uses the archive, or the one that writes it, or "" (turned off, no
    ``java`` found, another play is writing it)."""
    if os.environ.get(CDS_ENV) == "0":
        return ""
    java = local_java()
    if java is None:
        return ""
    folder = cache_dir()
    if any(c.isspace() for c in str(folder)):
        return ""  # spark.driver.extraJavaOptions splits on white space
    final = folder / archive_name(java, jvm_options)
    name = final.name
    writing = False
    for temp in folder.glob(f".{name}.*"):
        if not _finished(temp):
            writing = True
        elif final.exists():  # two plays wrote one at once: the later one is not needed
            temp.unlink(missing_ok=True)
        else:
            with contextlib.suppress(OSError):
                os.replace(temp, final)
    if final.exists():
        return f"{QUIET} -XX:SharedArchiveFile={final}"
    if writing:
        return ""
    return f"{QUIET} -XX:ArchiveClassesAtExit={folder / f'.{name}.{os.getpid()}'}"


def archive_name(java: str, jvm_options: str) -> str:
    """The archive's file name for this Spark, ``java`` binary and JVM options: another
    setting makes another archive."""
    return f"spark-classes-{_digest(java, jvm_options)}.jsa"


def local_java() -> str | None:
    """The ``java`` a local master's JVM runs (``JAVA_HOME``'s, else the one on PATH)."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home, "bin", "java")) if home else shutil.which("java")
    return os.path.realpath(java) if java and os.path.exists(java) else None


def _digest(java: str, jvm_options: str) -> str:
    import pyspark

    text = f"{pyspark.__version__}\x1f{java}\x1f{jvm_options}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _finished(temp: Path) -> bool:
    """True when the play that asked for ``temp`` has exited and the file has settled."""
    try:
        pid = int(temp.suffix.removeprefix("."))
        age = time.time() - temp.stat().st_mtime
    except (ValueError, OSError):
        return False
    return not _alive(pid) and age > SETTLED_S


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
