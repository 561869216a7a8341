"""The embedded Kafka a play, a bench or ``tisink broker`` starts when the user names none.

Two kinds, one option apart. ``apache`` (the default): a single-node Apache Kafka (KRaft) from
the official jars, about 8 s to start on two cores; its end offsets, lag and idempotent
producers are Kafka's, so what a consumer under test observes is what it would observe in
production. ``tansu``: an in-memory Kafka-protocol broker that starts in about 0.1 s, for runs
where only speed of start-up matters; its ListOffsets(latest) answers the last record batch's
base offset + 1 (1 after 1,000 records produced in one batch) and it has no InitProducerId.
"""

from __future__ import annotations

from types import TracebackType
from typing import Literal, Protocol, get_args

from tisink.run.apache_kafka import run_apache_kafka_foreground, start_apache_kafka
from tisink.run.broker import run_broker_foreground, start_broker

BrokerKind = Literal["apache", "tansu"]
BROKER_KINDS: tuple[str, ...] = get_args(BrokerKind)
DEFAULT_BROKER: BrokerKind = "apache"


class EmbeddedKafka(Protocol):
    """A started embedded broker: where clients connect, and a context that stops it."""

    @property
    def bootstrap(self) -> str: ...

    def __enter__(self) -> EmbeddedKafka: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def start_embedded_broker(kind: BrokerKind = DEFAULT_BROKER) -> EmbeddedKafka:
    """Start a broker of ``kind`` on a free loopback port (BrokerStartError when it cannot)."""
    if kind == "apache":
        return start_apache_kafka()
    return start_broker()


def serve_embedded_broker(kind: BrokerKind, port: int) -> int:
    """Run a broker of ``kind`` on ``port`` until SIGINT/SIGTERM; returns an exit code."""
    if kind == "apache":
        return run_apache_kafka_foreground(port)
    return run_broker_foreground(port)
