"""Fixtures of the Debezium codec tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def debezium_golden(reference_data: Path) -> Path:
    return reference_data / "formats" / "debezium" / "golden"
