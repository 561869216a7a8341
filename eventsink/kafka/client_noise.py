"""The Kafka clients' retry noise, held down while a play or a replay runs.

When the broker goes away, aiokafka logs each reconnect and metadata attempt (every 100 ms
until the send's retry time runs out: thousands of lines a minute) and the sends given up
leave futures whose failures nobody reads, which asyncio reports one by one when they are
collected. The failure itself reaches the play or replay as one error naming the partition and
the client's error, so while one runs each kind of client line (its message template) is shown
once and its repeats are counted, and the abandoned futures' reports go to the debug log. With
``-vv`` (a DEBUG root logger) every line is shown.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aiokafka.errors import KafkaError

log = logging.getLogger(__name__)

CLIENT_LOGGERS = (
    "aiokafka",
    "aiokafka.client",
    "aiokafka.conn",
    "aiokafka.cluster",
    "aiokafka.producer.producer",
    "aiokafka.producer.sender",
    "tisink.eventsink.kafka.producer",
)
"""The loggers a producer's retries write to (aiokafka's and tisink's own retry warnings)."""


class FirstOfEach(logging.Filter):
    """Passes the first record of each logger and message template; counts the rest."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[str, str]] = set()
        self.repeats = 0

    def filter(self, record: logging.LogRecord) -> bool:
        kind = (record.name, str(record.msg))
        if kind in self.seen:
            self.repeats += 1
            return False
        self.seen.add(kind)
        return True


@contextmanager
def quiet_client_retries() -> Iterator[FirstOfEach]:
    """Each kind of client line once while the block runs (every line at DEBUG)."""
    once = FirstOfEach()
    loggers = (
        []
        if logging.getLogger().isEnabledFor(logging.DEBUG)
        else [logging.getLogger(name) for name in CLIENT_LOGGERS]
    )
    for logger in loggers:
        logger.addFilter(once)
    try:
        yield once
    finally:
        for logger in loggers:
            logger.removeFilter(once)
        if once.repeats:
            log.info("%d repeated Kafka client log lines were not shown", once.repeats)


def quiet_abandoned_sends(loop: asyncio.AbstractEventLoop) -> None:
    """Report a collected future's unread Kafka client failure (a send abandoned once another
    failed the run) at DEBUG; anything else goes to the loop's default handler."""

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if isinstance(context.get("exception"), KafkaError) and "never retrieved" in str(
            context.get("message", "")
        ):
            log.debug("an abandoned send's failure: %s", context["exception"])
            return
        loop.default_exception_handler(context)

    loop.set_exception_handler(handle)
