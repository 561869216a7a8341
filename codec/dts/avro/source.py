"""How both DTS Avro formats describe the source: its version and binlog positions as text."""

from __future__ import annotations

from tisink.codec.dts.avro.wire import blob_bytes, text_bytes
from tisink.codec.dts.binlog import BINLOG_FILE_NUMBER, gtid

SOURCE_VERSION = "8.0.11-TiDB"
"""What ``SELECT VERSION()`` starts with on TiDB (MySQL 8.0.11 compatible); DTS reports it as
the source version."""


def position(seq: int) -> str:
    """``End_log_pos@<binlog file number>`` (seeds/003): the record's place on the binlog."""
    return f"{seq}@{BINLOG_FILE_NUMBER}"


POSITION_FORMAT = b"%d@" + str(BINLOG_FILE_NUMBER).encode()
"""``position`` as bytes: ``POSITION_FORMAT % seq``, at most 22 bytes (a uint64 seq), so its
Avro length is ``LENGTHS[len(text)]``."""


def position_bytes(seq: int) -> bytes:
    """``position(seq)`` as an Avro string."""
    return blob_bytes(POSITION_FORMAT % seq)


def number_text(number: int) -> bytes:
    """A decimal number as an Avro string (``binlog.transaction_id`` of a start ts)."""
    return blob_bytes(b"%d" % number)


_GTID_HEADS = tuple(text_bytes(gtid(10 ** (n - 1)))[:-n] for n in range(1, 24))
"""``binlog.gtid`` as an Avro string up to the commit ts's digits, by their count less one (a
TSO has at most 20)."""


def gtid_text(commit_ts: int) -> bytes:
    """``binlog.gtid(commit_ts)`` as an Avro string."""
    digits = b"%d" % commit_ts
    if len(digits) <= len(_GTID_HEADS):
        return _GTID_HEADS[len(digits) - 1] + digits
    return text_bytes(gtid(commit_ts))
