"""One ordered queue and sender task per (topic, partition) of the MQ DML sink.

TiCDC keeps the order of messages per partition by sending from a single loop; here each
partition has its own task, so partitions progress independently while each stays in order.
The task takes everything queued so far as one batch, because a producer call per batch (not
per message) is what makes the pipeline fast.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from codec.message import Message
from eventsink.errors import EventSinkError
from eventsink.mq.producer import Producer

log = logging.getLogger(__name__)


class Ack(Protocol):
    """What to tell once a message is acknowledged: e.g. the txn it belongs to."""

    def acked(self) -> None: ...


QueuedMessage = tuple[Message, Ack | None]


class PartitionSender:
    """Sends the messages of one partition in queue order, batch by batch.

    ``on_acked`` gets each delivered batch (the sink releases bytes and fires callbacks);
    ``on_failed`` gets the error of a failed send, after which this sender stops for good.
    """

    def __init__(
        self,
        producer: Producer,
        topic: str,
        partition: int,
        on_acked: Callable[[list[QueuedMessage]], None],
        on_failed: Callable[[EventSinkError], None],
    ) -> None:
        self.topic = topic
        self.partition = partition
        self._producer = producer
        self._on_acked = on_acked
        self._on_failed = on_failed
        self._queue: list[QueuedMessage] = []
        self._ready = asyncio.Event()
        self._closing = False
        self._stopped = False
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"mq-sender {topic}/{partition}"
        )

    def put(self, message: Message, ack: Ack | None) -> None:
        self._queue.append((message, ack))
        self._ready.set()

    @property
    def pending(self) -> int:
        """Messages queued and not yet handed to the producer."""
        return len(self._queue)

    def stop(self) -> None:
        """Stop after the current send; whatever is still queued is dropped (the sink is dead)."""
        self._stopped = True
        self._ready.set()

    async def close(self) -> None:
        """Send what is queued, then end the task."""
        self._closing = True
        self._ready.set()
        await self._task

    async def _run(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            if self._stopped:
                return
            if not self._queue:
                if self._closing:
                    return
                continue
            batch, self._queue = self._queue, []
            try:
                await self._producer.send(self.topic, self.partition, [m for m, _ in batch])
            except asyncio.CancelledError:
                raise
            except Exception as err:
                failure = EventSinkError(
                    f"send to topic {self.topic!r} partition {self.partition} failed "
                    f"({len(batch)} messages): {err}"
                )
                failure.__cause__ = err
                log.error("%s", failure)
                self._stopped = True
                self._on_failed(failure)
                return
            self._on_acked(batch)
            if self._queue or self._closing:
                self._ready.set()
