"""``tests/db_servers.py``: a server that is not installed skips its tests with one line, unless
CI asks for every server (``TISINK_REQUIRE_SERVERS=1``), and the programs are found without a
fixed install path."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests import db_servers


@contextmanager
def _missing() -> Iterator[str]:
    raise db_servers.ServerMissing("PostgreSQL server not installed: apt-get install postgresql")
    yield "never"


def test_a_missing_server_skips_with_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(db_servers.REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install postgresql"):
        next(db_servers._server(_missing))


def test_ci_fails_instead_of_skipping(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(db_servers.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="TISINK_REQUIRE_SERVERS=1"):
        next(db_servers._server(_missing))


def _programs(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True)
    for name in names:
        program = folder / name
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    return folder


def test_postgresql_is_found_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bindir = _programs(tmp_path / "pg" / "bin", "postgres", "initdb")
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.setattr(db_servers, "SBIN", ())
    assert db_servers.postgresql_bindir() == bindir.resolve()


def test_postgresql_falls_back_to_the_newest_debian_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "lib" / "postgresql"
    for version in ("9", "15", "13"):
        _programs(root / version / "bin", "postgres")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(db_servers, "SBIN", ())
    monkeypatch.setattr(db_servers, "DEBIAN_PG_ROOT", root)
    assert db_servers.postgresql_bindir() == root / "15" / "bin"


def test_nothing_installed_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(db_servers, "SBIN", ())
    monkeypatch.setattr(db_servers, "DEBIAN_PG_ROOT", tmp_path / "none")
    with pytest.raises(db_servers.ServerMissing, match="apt-get install postgresql"):
        db_servers.postgresql_bindir()
    with pytest.raises(db_servers.ServerMissing, match="apt-get install mariadb-server"):
        db_servers.mariadb_programs()
