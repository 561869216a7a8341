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
    "reference_data",
    "simple_golden",
]

REFERENCE_DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def reference_data() -> Path:
    """``tests/data``: the reference formats and goldens, copied into the repository
    (``tests/data/README.md`` names their sources)."""
    return REFERENCE_DATA


@pytest.fixture(scope="session")
def simple_golden(reference_data: Path) -> Path:
    return reference_data / "formats" / "ticdc-simple" / "golden"
