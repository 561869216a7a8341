"""Records of a ``file://`` sink folder, in the order a consumer of each partition sees them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from tisink.codec.message import Headers
from tisink.eventsink.file import FileSinkError, list_file_topics, read_file_topic_records
from tisink.verify.errors import VerifyError


class Record(NamedTuple):
    """One record as ``StreamChecker.check_record`` takes it; ``headers`` () when none."""

    topic: str
    partition: int
    offset: int
    value: bytes | None
    key: bytes | None
    headers: Headers


def file_topics(directory: Path) -> list[str]:
    """Topics with partition files under ``directory``; VerifyError if it is no folder."""
    if not directory.is_dir():
        raise VerifyError(f"file sink folder {directory} does not exist")
    return list_file_topics(directory)


def read_file_records(directory: Path, topics: Sequence[str]) -> Iterator[Record]:
    """Every record of ``topics``, partition by partition in offset order."""
    for topic in topics:
        try:
            for partition, offset, key, value, headers in read_file_topic_records(directory, topic):
                yield Record(topic, partition, offset, value, key, headers)
        except FileSinkError as err:
            raise VerifyError(f"cannot read topic {topic!r}: {err}") from err
