"""Fixtures shared by every test package: where the golden data lives, the broker, the database
servers (``tests/db_servers.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.broker_fixture import kafka_bootstrap
from tests.db_servers import fresh_mariadb, fresh_postgresql, mariadb_url, postgresql_url

__all__ = [
    "fresh_mariadb",
    "fresh_postgresql",
    "kafka_bootstrap",
    "mariadb_url",
    "postgresql_url",
    "shared_dir",
    "simple_golden",
]

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"the shared/ folder is missing beside the repository ({SHARED})")
    return SHARED


@pytest.fixture(scope="session")
def simple_golden(shared_dir: Path) -> Path:
    return shared_dir / "formats" / "ticdc-simple" / "golden"
