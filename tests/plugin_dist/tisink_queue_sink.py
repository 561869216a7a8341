"""A third-party MQ target, ``queue://DIR?partitions=N``, written against ``tisink.plugin`` alone
(its core and ``tisink.plugin.mq``).

Its producer appends each (topic, partition) to ``DIR/<topic>/<partition>.log`` (one JSON line
per record, offsets from 0). By declaring the capabilities, the plugin gets what the built-in
Kafka and file sinks get: TiCDC's MQ sinks over its producer (``MQSinkProvider``), Spark tasks
that each own one partition (``MQTargetProvider``) and ``tisink verify`` (``VerifiableProvider``
through its ``RecordSource``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path

from tisink.plugin import ChangefeedConfig, SinkURI
from tisink.plugin.mq import (
    MQSinkProvider,
    MQTarget,
    OnRecord,
    OpenedProducer,
    Record,
    StreamReadError,
)

DEFAULT_TOPIC = "cdc"


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def _raw(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


class QueueProducer:
    """A ``Producer``: every topic has ``partitions`` partitions; one writer per partition."""

    def __init__(self, directory: Path, partitions: int) -> None:
        self.directory = directory
        self.partitions = partitions
        self._next: dict[tuple[str, int], int] = {}

    async def partition_count(self, topic: str) -> int:
        (self.directory / topic).mkdir(parents=True, exist_ok=True)
        return self.partitions

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        path = self.directory / topic / f"{partition}.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        offset = self._next.get((topic, partition))
        if offset is None:
            offset = len(path.read_bytes().splitlines()) if path.exists() else 0
        lines = []
        for record in records:
            headers = record[2] if len(record) > 2 else ()
            lines.append(
                json.dumps(
                    {
                        "offset": offset,
                        "key": _b64(record[0]),
                        "value": _b64(record[1]),
                        "headers": [[name, _b64(value)] for name, value in headers],
                    }
                )
            )
            offset += 1
        with path.open("a", encoding="utf-8") as out:
            out.write("".join(line + "\n" for line in lines))
        self._next[(topic, partition)] = offset

    async def close(self) -> None:
        """Nothing held open between sends."""


class QueueRecordSource:
    """A ``RecordSource`` over a queue folder."""

    continuous_offsets = True

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def topics(self) -> list[str]:
        if not self.directory.is_dir():
            raise StreamReadError(f"queue folder {self.directory} does not exist")
        return sorted(p.name for p in self.directory.iterdir() if p.is_dir())

    def read(self, topics: Sequence[str], on_record: OnRecord) -> list[str]:
        for topic in topics:
            files = sorted((self.directory / topic).glob("*.log"), key=lambda p: int(p.stem))
            for path in files:
                for line in path.read_text(encoding="utf-8").splitlines():
                    item = json.loads(line)
                    headers = tuple((name, _raw(value) or b"") for name, value in item["headers"])
                    value = _raw(item["value"])
                    on_record(
                        topic, int(path.stem), item["offset"], value, _raw(item["key"]), headers
                    )
        return []

    def close(self) -> None:
        """Files are closed once read."""


class QueueSinkProvider(MQSinkProvider):
    """``queue://DIR?partitions=N&topic=T`` (and any TiCDC sink parameter, e.g. ``protocol``)."""

    uri_params = ("partitions", "topic")
    default_protocol = "simple"

    def __init__(self) -> None:
        super().__init__()
        self._shared: dict[str, QueueProducer] = {}

    def mq_target(self, uri: SinkURI, config: ChangefeedConfig) -> MQTarget:
        topic = uri.params.get("topic", DEFAULT_TOPIC)
        return MQTarget(uri.scheme, config.with_protocol_default("simple"), topic)

    async def open_producer(self, uri: SinkURI, target: MQTarget) -> OpenedProducer:
        return OpenedProducer(QueueProducer(Path(uri.path), int(uri.params.get("partitions", 3))))

    async def producer_for_sinks(self, uri: SinkURI, target: MQTarget) -> OpenedProducer:
        """The event and DDL sinks of one play share a producer: one offset count."""
        if uri.path not in self._shared:
            opened = await self.open_producer(uri, target)
            self._shared[uri.path] = opened.producer  # type: ignore[assignment]
        return OpenedProducer(self._shared[uri.path])

    def open_record_source(
        self, uri: SinkURI, config: ChangefeedConfig, timeout_s: float
    ) -> QueueRecordSource:
        return QueueRecordSource(Path(uri.path))
