"""The constant fragments of a transaction's entries, for ``frames``.

From one transaction to the next, BEGIN and COMMIT entries change only in the binlog time, the
seqId, the GTID and the transaction id; everything around them depends on lengths alone. So
the leading bytes of an item (the item tag, the entry's and the header's lengths, the header's
constant start) are kept per (message type, header size, event size), and the GTID and COMMIT
event are a prefix chosen by the number of digits that follow it.
"""

from __future__ import annotations

from tisink.codec.dts import binlog
from tisink.codec.dts.tencent.entries import (
    BEGIN,
    ENTRY_EVENT,
    ENTRY_HEADER,
    HEADER_START,
    ITEM,
    MESSAGE_TYPE,
    SEQ_ID,
)
from tisink.codec.dts.tencent.enums import MessageType
from tisink.codec.dts.tencent.wire import field_bytes, field_text, length_varint

START = {t: HEADER_START + MESSAGE_TYPE[t] for t in MessageType}
"""A header's first bytes: ``version``, ``sourceType``, ``messageType``."""
START_SIZE = len(START[MessageType.BEGIN])
FIXED = START_SIZE + len(SEQ_ID)
"""Header bytes besides the time, position, seq and GTID fields and the table names."""
BEGIN_EVENT = field_bytes(2, BEGIN)
"""``Entry.event`` of every BEGIN."""
DML_EVENT = field_bytes(2, b"")[:1]
"""``Event.dmlEvent``'s tag."""
DIGITS = 24
"""More digits than a commit or start ts (uint64) can have."""


def _commit_event(digits: int) -> tuple[bytes, int]:
    """A COMMIT's ``Entry.event`` up to its transaction id's ``digits`` digits, and the size
    of the ``Event`` message."""
    event = field_bytes(3, field_text(1, "0" * digits))
    return ENTRY_EVENT + length_varint(len(event)) + event[:-digits], len(event)


def _gtid_head(digits: int) -> bytes:
    """``Header.gtid`` up to the commit ts's ``digits`` digits."""
    return field_text(8, binlog.gtid(10 ** (digits - 1)))[:-digits]


COMMIT_EVENTS, COMMIT_SIZES = zip(*(_commit_event(n) for n in range(1, DIGITS)), strict=True)
"""By the number of digits of the transaction id, less one."""
GTID_HEADS = tuple(_gtid_head(n) for n in range(1, DIGITS))
"""By the number of digits of the commit ts, less one."""
_PREFIXES: dict[int, bytes] = {}
_PREFIX_CACHE = 1024
"""(message type, header size, event size) combinations kept; a stream has a handful."""


def item_prefix(message_type: MessageType, header_size: int, event_size: int) -> bytes:
    """An ``Entries.items`` field up to the header's first variable field: the item tag and
    length, the header tag and length, ``version``, ``sourceType``, ``messageType``."""
    header_length = length_varint(header_size)
    entry = 2 + len(header_length) + header_size + len(length_varint(event_size)) + event_size
    return b"".join((ITEM, length_varint(entry), ENTRY_HEADER, header_length, START[message_type]))


def cached_prefix(message_type: MessageType, header_size: int, event_size: int) -> bytes:
    """``item_prefix`` of BEGIN and COMMIT, whose sizes barely vary."""
    key = (header_size << 8 | event_size) << 3 | message_type
    found = _PREFIXES.get(key)
    if found is None:
        found = item_prefix(message_type, header_size, event_size)
        if len(_PREFIXES) < _PREFIX_CACHE:
            _PREFIXES[key] = found
    return found


def gtid_bytes(ts: int) -> bytes:
    """``entries.gtid_field(ts)``, from a prefix by the number of digits."""
    digits = b"%d" % ts
    if len(digits) < DIGITS:
        return GTID_HEADS[len(digits) - 1] + digits
    return field_text(8, binlog.gtid(ts))  # more digits than any TSO
