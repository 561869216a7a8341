"""Fixtures shared by every test package: where the golden data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.broker_fixture import kafka_bootstrap

__all__ = ["kafka_bootstrap", "shared_dir", "simple_golden"]

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
