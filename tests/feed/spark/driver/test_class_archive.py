"""The local JVM's class archive: written by one play, promoted once settled, used after."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tisink.feed.spark.driver import class_archive
from tisink.feed.spark.driver.class_archive import CDS_ENV, class_archive_option

pytestmark = pytest.mark.skipif(class_archive.local_java() is None, reason="needs java")
OPTIONS = "-XX:TieredStopAtLevel=1"


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TISINK_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(CDS_ENV, raising=False)
    return tmp_path


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], text=True,
                          capture_output=True, check=True)  # fmt: skip
    return int(done.stdout)


def test_the_first_play_writes_the_archive_under_its_own_name(cache: Path) -> None:
    option = class_archive_option(OPTIONS)
    assert "-XX:ArchiveClassesAtExit=" in option
    written = Path(option.split("=")[-1])
    assert written.parent == cache and written.name.endswith(f".jsa.{os.getpid()}")


def test_a_settled_archive_of_an_exited_play_is_promoted_and_used(cache: Path) -> None:
    temp = Path(class_archive_option(OPTIONS).split("=")[-1])
    finished = temp.with_name(temp.name.rsplit(".", 1)[0] + f".{_dead_pid()}")
    finished.write_bytes(b"archive")
    old = finished.stat().st_mtime - class_archive.SETTLED_S - 5
    os.utime(finished, (old, old))
    option = class_archive_option(OPTIONS)
    final = cache / finished.name.removeprefix(".").rsplit(".", 1)[0]
    assert option.endswith(f"-XX:SharedArchiveFile={final}") and final.read_bytes() == b"archive"
    assert not finished.exists()


def test_a_second_archive_of_an_exited_play_is_removed_once_one_is_used(cache: Path) -> None:
    """Two plays that started together each wrote one: the later one would lie in the cache
    for good (about 150 MB)."""
    temp = Path(class_archive_option(OPTIONS).split("=")[-1])
    final = cache / temp.name.removeprefix(".").rsplit(".", 1)[0]
    final.write_bytes(b"first")
    second = temp.with_name(temp.name.rsplit(".", 1)[0] + f".{_dead_pid()}")
    second.write_bytes(b"second")
    old = second.stat().st_mtime - class_archive.SETTLED_S - 5
    os.utime(second, (old, old))
    running = temp.with_name(temp.name.rsplit(".", 1)[0] + f".{os.getpid()}")
    running.write_bytes(b"being written")
    assert class_archive_option(OPTIONS).endswith(f"-XX:SharedArchiveFile={final}")
    assert not second.exists() and final.read_bytes() == b"first"
    assert running.exists()  # a play still writing is left alone


def test_an_archive_being_written_is_left_alone(cache: Path) -> None:
    """A play still running (or a file still changing): no second writer, no use yet."""
    temp = Path(class_archive_option(OPTIONS).split("=")[-1])
    temp.write_bytes(b"half")
    assert class_archive_option(OPTIONS) == ""
    assert class_archive_option(OPTIONS + " -Xss2m").startswith("-Xlog")  # other options: own


def test_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CDS_ENV, "0")
    assert class_archive_option(OPTIONS) == ""
