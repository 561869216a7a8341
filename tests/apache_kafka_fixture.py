"""Session fixture ``apache_kafka_bootstrap``: a real Apache Kafka, for what Tansu gets wrong.

The embedded Tansu broker (``broker_fixture.kafka_bootstrap``) counts one offset per record
batch; a test that reads end offsets, or runs aiokafka's idempotent producer, needs Apache
Kafka. Set ``TISINK_APACHE_KAFKA_BOOTSTRAP=host:port`` to use one already running; otherwise
one single-node KRaft broker (``tisink.run.apache_kafka``) serves the session. Its jars are
resolved with Maven on the first start on a machine (about 45 MB into tisink's cache); later
starts take a few seconds.

Import the fixture into a conftest: ``from tests.apache_kafka_fixture import
apache_kafka_bootstrap``; ``apache_kafka_fixture(scope="module")`` makes another, for a module
that wants a broker of its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest

from tisink.run.apache_kafka import start_apache_kafka

APACHE_KAFKA_BOOTSTRAP_ENV = "TISINK_APACHE_KAFKA_BOOTSTRAP"

Scope = Literal["session", "package", "module", "class", "function"]


def external_apache_kafka() -> str | None:
    """The external Apache Kafka the tests were pointed at, if any."""
    return os.environ.get(APACHE_KAFKA_BOOTSTRAP_ENV) or None


def apache_kafka_fixture(
    scope: Scope = "session", *, name: str = "apache_kafka_bootstrap", **start: Any
) -> Callable[..., Iterator[str]]:
    """A fixture yielding a ``host:port`` of Apache Kafka, started (with ``start`` passed to
    ``start_apache_kafka``) and stopped once per ``scope``, unless an external one is set."""

    @pytest.fixture(scope=scope, name=name)
    def _apache_kafka() -> Iterator[str]:
        external = external_apache_kafka()
        if external:
            yield external
            return
        with start_apache_kafka(**start) as broker:
            yield broker.bootstrap

    return _apache_kafka


apache_kafka_bootstrap = apache_kafka_fixture("session")
