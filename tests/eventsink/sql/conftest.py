"""``database``: a fresh database of each dialect in turn (``support.DIALECTS``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.eventsink.sql.support import DIALECTS, Database, fresh_database


@pytest.fixture(params=DIALECTS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    return fresh_database(request, request.param, tmp_path)
