"""Where a consumer reads a Simple Protocol stream from: tisink's partition files, or Kafka.

Both give ``(partition, value)`` pairs, taking a few records from each partition in turn, as a
consumer reading several partitions at once sees them interleaved.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

CHUNK = 50


class SourceError(Exception):
    """The source cannot be read: the message names it and says why."""


def partition_count(source: str) -> int:
    """Partitions of the topic ``source`` names (``file:///dir/topic`` or ``kafka://host/topic``);
    SourceError when there is no such topic (a consumer of nothing would report success)."""
    url = urlsplit(source)
    if url.scheme == "file":
        folder = Path(url.path)
        if not folder.is_dir():
            raise SourceError(f"{source}: no such topic folder")
        count = len(list(folder.glob("partition-*.jsonl")))
        if count == 0:
            raise SourceError(f"{source}: no partition-*.jsonl files in the topic folder")
        return count
    if url.scheme != "kafka":
        raise SourceError(f"{source}: read file:///dir/topic or kafka://host:port/topic")
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    topic = url.path.strip("/")
    try:  # every topic's metadata: asking for one by name may create it (auto-create)
        metadata = AdminClient({"bootstrap.servers": url.netloc}).list_topics(timeout=10)
    except KafkaException as err:
        raise SourceError(f"{source}: cannot read the topic's metadata: {err}") from err
    found = metadata.topics.get(topic)
    error = None if found is None else found.error
    if found is None or error is not None or not found.partitions:
        why = error.str() if error is not None else "no partitions"
        raise SourceError(f"{source}: no such topic ({why})")
    return len(found.partitions)


def read(source: str) -> Iterator[tuple[int, bytes]]:
    """Every record's value of the topic, partitions interleaved, each in offset order."""
    url = urlsplit(source)
    if url.scheme == "file":
        return _files(Path(url.path))
    if url.scheme == "kafka":
        return _kafka(url.netloc, url.path.strip("/"))
    raise ValueError(f"{source}: read file:///dir/topic or kafka://host:port/topic")


def _files(topic_dir: Path) -> Iterator[tuple[int, bytes]]:
    files = sorted(topic_dir.glob("partition-*.jsonl"))
    readers = {int(f.stem.split("-")[1]): f.open("rb") for f in files}
    try:
        while readers:
            for partition in sorted(readers):
                for _ in range(CHUNK):
                    line = readers[partition].readline()
                    if not line:
                        readers.pop(partition).close()
                        break
                    yield partition, base64.b64decode(json.loads(line)["value"])
    finally:
        for handle in readers.values():
            handle.close()


def _kafka(bootstrap: str, topic: str) -> Iterator[tuple[int, bytes]]:
    from confluent_kafka import Consumer, KafkaError, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "tisink-example-consumer",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
        }
    )
    partitions = partition_count(f"kafka://{bootstrap}/{topic}")
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    ended: set[int] = set()
    try:
        while len(ended) < partitions:
            message = consumer.poll(5.0)
            if message is None:
                break
            error = message.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    ended.add(message.partition())
                    continue
                raise RuntimeError(f"{topic}[{message.partition()}]: {error}")
            value = message.value()
            if value is not None:
                yield message.partition(), value
    finally:
        consumer.close()
