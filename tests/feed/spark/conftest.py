"""The Spark session the engine's tests share, one per test module (local[2])."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tisink.feed.spark.driver.session import spark_session


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    session = spark_session("local[2]")
    yield session
    session.stop()
