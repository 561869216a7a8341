"""The bytes around Avro data: the Confluent wire format and TiCDC's two testing markers.

A row's key and value are ``0x00``, the schema id as 4 bytes big-endian, then the Avro binary
datum (Confluent's wire format; tiflow ``confluentSchemaManager.getMsgHeader``). With
``enable-tidb-extension`` and ``avro-enable-watermark`` TiCDC also writes DDL events (``0x01``
then the DDL as JSON) and checkpoints (``0x02`` then the ts as 8 bytes big-endian), with no key;
TiCDC marks them as for testing only.
"""

from __future__ import annotations

import struct

from tisink.codec.errors import MessageDecodeError

MAGIC_BYTE = 0
DDL_BYTE = 1
CHECKPOINT_BYTE = 2
DELETE_BYTE = 3
"""ticdc's DELETE marker (``deleteByte``, newarch only): a DELETE's value with watermarks on."""

_HEADER = struct.Struct(">bI")
_CHECKPOINT = struct.Struct(">BQ")
HEADER_SIZE = _HEADER.size


def header(schema_id: int) -> bytes:
    """The 5-byte Confluent header of ``schema_id``."""
    return _HEADER.pack(MAGIC_BYTE, schema_id)


def split(data: bytes) -> tuple[int, bytes]:
    """``(schema id, Avro datum)`` of a Confluent-framed message; MessageDecodeError if it is
    not one."""
    if len(data) < HEADER_SIZE or data[0] != MAGIC_BYTE:
        raise MessageDecodeError(
            f"not a Confluent Avro message (want magic byte 0 and a 4-byte schema id): {data[:8]!r}"
        )
    return _HEADER.unpack_from(data)[1], data[HEADER_SIZE:]


def checkpoint(ts: int) -> bytes:
    """TiCDC's checkpoint marker of ``ts``."""
    return _CHECKPOINT.pack(CHECKPOINT_BYTE, ts)


def delete_marker(commit_ts: int) -> bytes:
    """ticdc's DELETE value under ``enable-tidb-extension`` and ``avro-enable-watermark``:
    ``0x03`` and the commit ts, 8 bytes big-endian (tiflow writes a null value)."""
    return _CHECKPOINT.pack(DELETE_BYTE, commit_ts)


def is_delete_marker(data: bytes | None) -> bool:
    """Whether a value is ticdc's DELETE marker (9 bytes led by ``0x03``)."""
    return data is not None and len(data) == _CHECKPOINT.size and data[0] == DELETE_BYTE


def checkpoint_ts(data: bytes) -> int:
    """The ts of a checkpoint marker; MessageDecodeError if it has the wrong length."""
    if len(data) != _CHECKPOINT.size:
        raise MessageDecodeError(f"an Avro checkpoint marker is 9 bytes, got {len(data)}")
    return int(_CHECKPOINT.unpack(data)[1])
