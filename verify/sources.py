"""Records of a ``file://`` sink folder as ``StreamChecker.check_record`` takes them, in the order
a consumer of each partition sees them (for tests and tools; verify reads any scheme through the
provider's ``RecordSource``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from tisink.codec.message import Headers
from tisink.eventsink.reading import FileRecordSource, StreamReadError
from tisink.verify.errors import VerifyError


class Record(NamedTuple):
    """One record as ``StreamChecker.check_record`` takes it; ``headers`` () when none."""

    topic: str
    partition: int
    offset: int
    value: bytes | None
    key: bytes | None
    headers: Headers


def read_file_records(directory: Path, topics: Sequence[str]) -> Iterator[Record]:
    """Every record of ``topics``, partition by partition in offset order."""
    source = FileRecordSource(directory)
    try:
        for topic, (partition, offset, key, value, headers) in source.records(topics):
            yield Record(topic, partition, offset, value, key, headers)
    except StreamReadError as err:
        raise VerifyError(str(err)) from err
