"""The optional ``checksum`` of a ``row`` record: TiCDC's row checksum (``[integrity]
integrity-check-level = "correctness"``) carried by the feed.

``"checksum": {"version": 2, "corrupted": false, "current": 123, "previous": 0}``, every key
optional: ``version`` is TiDB's checksum header version (0 = checksum V1, 1 = v8.3's raw
checksum, 2 = checksum V2; default 2); ``current`` and ``previous`` are uint32s, computed from
the images as TiDB and TiCDC do (``codec/checksum.py``) when absent; ``corrupted: true`` with
them absent gives what TiCDC writes for a row whose data did not match TiDB's checksum (the
new image's, else the old one's). A checksum given here is what every protocol that carries
checksums writes for the row, instead of the one an encoder would compute.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from tisink.codec.checksum import VERSIONS, ChecksumError, Corruption, row_checksum
from tisink.feed.errors import FeedError
from tisink.feed.format.records import FeedRecord, FeedRow, place
from tisink.model.events import RowChangedEvent, RowChecksum

_KEYS = frozenset(("version", "corrupted", "current", "previous"))
_U32 = (1 << 32) - 1


def parse_checksum(value: Any, row: RowChangedEvent) -> RowChecksum:
    """The ``RowChecksum`` of a record's ``checksum`` object, for ``row`` (its images)."""
    table = row.table.qualified_name
    if not isinstance(value, dict):
        raise FeedError(f"checksum must be an object, got {value!r}", table=table)
    unknown = sorted(value.keys() - _KEYS)
    if unknown:
        raise FeedError(f"unknown field {unknown[0]!r} in a row's checksum", table=table)
    version = value.get("version", 2)
    if type(version) is not int or version not in VERSIONS:
        raise FeedError(f"checksum version must be one of {list(VERSIONS)}, got {version!r}")
    corrupted = value.get("corrupted", False)
    if type(corrupted) is not bool:
        raise FeedError(f"checksum corrupted must be true or false, got {corrupted!r}")
    for key in ("current", "previous"):
        given = value.get(key)
        if given is not None and (type(given) is not int or not 0 <= given <= _U32):
            raise FeedError(f"checksum {key} must be a uint32, got {given!r}", table=table)
    corruption = None
    if corrupted:
        corruption = Corruption(current=row.after is not None, previous=row.after is None)
    if row.table.partition is not None:  # v8.3's checksum reads the partition's id
        place(row)
    try:
        computed = row_checksum(row, version, corruption)
    except ChecksumError as err:
        raise FeedError(f"checksum: {err}", table=table) from err
    return RowChecksum(
        version,
        corrupted,
        value.get("current", computed.current),
        value.get("previous", computed.previous),
    )


def checksum_record(checksum: RowChecksum) -> dict[str, Any]:
    """The ``checksum`` object of a record (all four keys: reading it gives ``checksum``)."""
    return {
        "version": checksum.version,
        "corrupted": checksum.corrupted,
        "current": checksum.current,
        "previous": checksum.previous,
    }


def with_checksums(
    records: Iterable[FeedRecord], version: int = 2, corrupt_nth: int = 0
) -> Iterator[FeedRecord]:
    """``records`` with each row's checksum as TiDB and TiCDC give it (``version``), every
    ``corrupt_nth``-th row (0: none) marked corrupted as TiCDC marks it: how a generated
    workload carries checksums into a feed file. A row with a checksum keeps it."""
    rows = 0
    for record in records:
        if isinstance(record, FeedRow) and record.row.checksum is None:
            rows += 1
            row = record.row
            corruption = None
            if corrupt_nth and rows % corrupt_nth == 0:
                corruption = Corruption(current=row.after is not None, previous=row.after is None)
            row.checksum = row_checksum(row, version, corruption)
        yield record
