"""The producer library a Kafka test runs with: every producer test runs with both."""

from __future__ import annotations

import pytest

from tisink.eventsink.kafka.config import CLIENTS


@pytest.fixture(params=CLIENTS)
def kafka_client(request: pytest.FixtureRequest) -> str:
    """``kafka-client``: aiokafka or librdkafka."""
    return str(request.param)
