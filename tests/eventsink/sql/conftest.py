"""``database``: a fresh database of each dialect in turn (``support.DIALECTS``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.eventsink.sql.support import DIALECTS, Database, sqlite_database


def fresh_database(request: pytest.FixtureRequest, kind: str, tmp_path: Path) -> Database:
    """A new empty database of ``kind``; the servers start only when a test needs them."""
    if kind == "sqlite":
        return sqlite_database(tmp_path / "cdc.db")
    if kind == "mysql":
        return Database(kind, request.getfixturevalue("fresh_mariadb"))
    return Database(kind, request.getfixturevalue("fresh_postgresql"))


@pytest.fixture(params=DIALECTS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    return fresh_database(request, request.param, tmp_path)
