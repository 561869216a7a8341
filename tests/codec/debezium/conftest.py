"""Fixtures of the Debezium codec tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def debezium_golden(shared_dir: Path) -> Path:
    return shared_dir / "formats" / "debezium" / "golden"
