"""How both DTS Avro formats describe the source: its version and binlog positions as text."""

from __future__ import annotations

from tisink.codec.dts.avro.wire import blob_bytes
from tisink.codec.dts.binlog import BINLOG_FILE_NUMBER

SOURCE_VERSION = "8.0.11-TiDB"
"""What ``SELECT VERSION()`` starts with on TiDB (MySQL 8.0.11 compatible); DTS reports it as
the source version."""


def position(seq: int) -> str:
    """``End_log_pos@<binlog file number>`` (seeds/003): the record's place on the binlog."""
    return f"{seq}@{BINLOG_FILE_NUMBER}"


def parse_position(text: str) -> int:
    """The offset of a ``position`` text; ValueError when it is not one."""
    offset, at, file_number = text.partition("@")
    if not at or not offset.isdigit() or not file_number.isdigit():
        raise ValueError(f"bad binlog position {text!r}: want 'offset@fileNumber'")
    return int(offset)


_POSITION = b"%d@" + str(BINLOG_FILE_NUMBER).encode()


def position_bytes(seq: int) -> bytes:
    """``position(seq)`` as an Avro string."""
    return blob_bytes(_POSITION % seq)
