"""Records of a ``file://`` sink folder, in the order a consumer of each partition sees them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from tisink.eventsink.file import FileSinkError, list_file_topics, read_file_topic
from tisink.verify.errors import VerifyError

Record = tuple[str, int, int, bytes | None]
"""(topic, partition, offset, value)."""


def file_topics(directory: Path) -> list[str]:
    """Topics with partition files under ``directory``; VerifyError if it is no folder."""
    if not directory.is_dir():
        raise VerifyError(f"file sink folder {directory} does not exist")
    return list_file_topics(directory)


def read_file_records(directory: Path, topics: Sequence[str]) -> Iterator[Record]:
    """Every record of ``topics``, partition by partition in offset order."""
    for topic in topics:
        try:
            for partition, offset, _key, value in read_file_topic(directory, topic):
                yield topic, partition, offset, value
        except FileSinkError as err:
            raise VerifyError(f"cannot read topic {topic!r}: {err}") from err
