"""What TiCDC carries: the ``checksum`` of a row event (and of a row it found corrupted), a
consumer's check of it, and a checksum found in or written into an encoded message."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tisink.codec.checksum.columns import _U32, V1, V2, VERSIONS, ChecksumError, column_checksum
from tisink.codec.checksum.rowvalue import raw_checksum
from tisink.model.events import RowChangedEvent, RowChecksum
from tisink.model.table import TableInfo

# --- what TiCDC carries ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Corruption:
    """Which image of a row TiCDC found corrupted (its checksum did not match the row)."""

    current: bool = True
    previous: bool = False


def stored_checksum(
    table: TableInfo,
    image: Mapping[str, Any],
    version: int,
    handle: int | None = None,
    clustered: bool | None = None,
) -> int:
    """The checksum TiDB keeps with the row: the column-level one (version 0) or the raw one."""
    if version == V1:
        return column_checksum(table, image)
    return raw_checksum(table, image, version=version, handle=handle, clustered=clustered)


def row_checksum(
    row: RowChangedEvent, version: int = V2, corruption: Corruption | None = None
) -> RowChecksum:
    """The ``checksum`` TiCDC attaches to ``row``: the column-level checksum of each image
    (0 for an image the row lacks), ``version`` as TiDB's row header has it.

    With ``corruption``, the named images are ones whose data TiCDC found not to match the
    checksum TiDB stored, and the checksum is what TiCDC's mounter then writes: ``corrupted``
    true and, for a V2 (raw-bytes) image, ``current``/``previous`` the checksum TiDB stored
    (the raw one, which is never the column-level one a consumer computes; should the two
    collide, or the raw one not be computable here, the column-level one with bits flipped);
    for a V1 image the column-level checksum of the row as delivered (TiCDC computed it from
    the data it received; only ``corrupted`` tells)."""
    if version not in VERSIONS:
        raise ChecksumError(f"checksum version {version}: TiDB has {list(VERSIONS)}")
    current = column_checksum(row.table, row.after) if row.after is not None else 0
    previous = column_checksum(row.table, row.before) if row.before is not None else 0
    if corruption is None or not (corruption.current or corruption.previous):
        return RowChecksum(version, False, current, previous)
    if version != V1:
        if corruption.current and row.after is not None:
            current = _stored_instead(row, row.after, version, current)
        if corruption.previous and row.before is not None:
            previous = _stored_instead(row, row.before, version, previous)
    return RowChecksum(version, True, current, previous)


def _stored_instead(
    row: RowChangedEvent, image: Mapping[str, Any], version: int, computed: int
) -> int:
    try:
        stored = raw_checksum(
            row.table, image, version=version, physical_table_id=row.physical_table_id
        )
    except ChecksumError:
        stored = computed
    return stored if stored not in (computed, 0) else corrupted_value(computed)


CORRUPTION_MASK = 0x5A5A5A5A


def corrupted_value(checksum: int) -> int:
    """A checksum that is certainly not ``checksum`` (nor 0, which TiCDC reads as "none")."""
    value = (checksum ^ CORRUPTION_MASK) & _U32
    return value or 1


def mismatches(row: RowChangedEvent) -> list[str]:
    """What a consumer verifying ``row.checksum`` finds (tiflow ``common.VerifyChecksum``):
    ``corrupted`` set, or an image whose column-level checksum is not the carried one (a
    carried 0 means "not enabled"). Empty when the row has no checksum or it holds."""
    checksum = row.checksum
    if checksum is None:
        return []
    found = []
    if checksum.corrupted:
        found.append("corrupted")
    for name, image, carried in (
        ("current", row.after, checksum.current),
        ("previous", row.before, checksum.previous),
    ):
        if carried == 0 or image is None:
            continue
        computed = column_checksum(row.table, image)
        if computed != carried:
            found.append(f"{name} checksum {carried} != {computed} computed from the row")
    return found


# --- a checksum carried in an encoded message -----------------------------------------------


@dataclass(frozen=True, slots=True)
class Carried:
    """A row checksum found in a message's bytes: ``value[start:end]`` holds it (``form``
    says how it is written, so ``rewritten`` can put another one in its place)."""

    checksum: RowChecksum
    start: int
    end: int
    form: str


_SIMPLE_JSON = re.compile(
    rb'"checksum":\{"version":(\d+),"corrupted":(true|false),"current":(\d+),"previous":(\d+)\}'
)
_VERSION_BYTES = {0x00: 0, 0x02: 1, 0x04: 2}  # zigzag ints 0, 1, 2
_DIGITS = frozenset(b"0123456789")
_CONFLUENT_HEADER = 5


def carried_simple_json(value: bytes) -> Carried | None:
    """The ``checksum`` object of a Simple JSON message (TiCDC's key order), if it has one."""
    if b'"checksum":{' not in value:
        return None
    match = _SIMPLE_JSON.search(value)
    if match is None:
        return None
    version, corrupted, current, previous = match.groups()
    checksum = RowChecksum(int(version), corrupted == b"true", int(current), int(previous))
    return Carried(checksum, match.start(), match.end(), "simple-json")


def carried_avro(value: bytes) -> Carried | None:
    """The trailing ``_tidb_row_level_checksum`` (digits), ``_tidb_corrupted``,
    ``_tidb_checksum_version`` of an Avro value in the Confluent wire format, if it ends so.

    The digits are found from the end: the string's length byte (zigzag: 2k for k digits, at
    most 20) is never a digit, and a digit byte is never such a length, so one k at most
    fits. ``previous`` is 0: TiCDC's Avro carries only the new image's checksum."""
    if len(value) < _CONFLUENT_HEADER + 4 or value[0] != 0:
        return None
    version = _VERSION_BYTES.get(value[-1])
    if version is None or value[-2] not in (0, 1):
        return None
    end = len(value) - 2
    for k in range(1, 11):
        start = end - k
        if start - 1 < _CONFLUENT_HEADER or value[start] not in _DIGITS:
            return None
        if value[start - 1] == 2 * k:
            current = int(value[start:end])
            if current > _U32:
                return None
            checksum = RowChecksum(version, value[-2] == 1, current, 0)
            return Carried(checksum, start - 1, len(value), "avro")
    return None


def rewritten(value: bytes, carried: Carried, checksum: RowChecksum) -> bytes:
    """``value`` with ``checksum`` written where ``carried`` was found, in its form."""
    if carried.form == "simple-json":
        new = (
            f'"checksum":{{"version":{checksum.version},'
            f'"corrupted":{"true" if checksum.corrupted else "false"},'
            f'"current":{checksum.current},"previous":{checksum.previous}}}'
        ).encode()
    else:
        digits = str(checksum.current).encode()
        new = bytes((2 * len(digits),)) + digits
        new += bytes((1 if checksum.corrupted else 0, 2 * checksum.version))
    return value[: carried.start] + new + value[carried.end :]
