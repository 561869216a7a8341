"""A transaction's entries built from what they share: the hot path of ``encode_rows``.

BEGIN, each DML run and COMMIT carry the same binlog time, GTID and, but for its first byte,
seqId varint, so these are encoded once per transaction (the time field once per second) and
framed with the cached fragments of ``templates``. At one row per transaction this framing used
to cost more than the row. ``items`` gives the items of any transaction; ``single`` writes the
commonest share, one run of rows that fits one Envelope, in a single join. Both write the bytes
of ``entries.item(entries.header(...))`` (tests prove it, varint length boundaries included).
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.dts.tencent.entries import (
    ENTRY_EVENT,
    ENTRY_HEADER,
    ITEM,
    POSITION,
    SEQ_ID,
    SERVER_FILE,
    WHOLE_DATA,
    commit_event,
    timestamp_field,
)
from tisink.codec.dts.tencent.enums import MessageType
from tisink.codec.dts.tencent.templates import (
    BEGIN_EVENT,
    COMMIT_EVENTS,
    COMMIT_SIZES,
    DIGITS,
    DML_EVENT,
    FIXED,
    GTID_HEADS,
    START,
    START_SIZE,
    cached_prefix,
    gtid_bytes,
    item_prefix,
)
from tisink.codec.dts.tencent.wire import varint_run
from tisink.codec.values.varint import SHORT_LIMIT, SHORT_VARINTS, varint
from tisink.model.tso import LOGICAL_BITS

_BEGIN, _COMMIT, _DML = MessageType.BEGIN, MessageType.COMMIT, MessageType.DML
_BEGIN_SIZE = len(BEGIN_EVENT) - 2
_DML_START = START[_DML]

_FIRST = tuple(bytes((n | 0x80,)) for n in range(0x80))
"""The first byte of a varint of more than one byte, by its low 7 bits."""
_FRAME_CACHE = 64
"""Frames kept: one per second and shape; consecutive shares rarely span more than two."""
_Frame = tuple[bytes, bytes, bytes, bytes, bytes, int, int]

Run = tuple[bytes, bytes]
"""A DML entry's table names (``Header`` fields 9, 10) and its ``DMLEvent``."""


class TransactionFrames:
    """Entries of transactions; keeps the time field of the last second seen."""

    __slots__ = ("_frames", "_second", "_shared")

    def __init__(self) -> None:
        self._second = -1
        self._shared = b""
        self._frames: dict[int, _Frame] = {}

    def _time(self, ts: int) -> bytes:
        """``timestamp``, ``serverId``, ``fileName`` and the ``position`` tag."""
        second = (ts >> LOGICAL_BITS) // 1000
        if second != self._second:
            self._second = second
            self._shared = timestamp_field(ts) + SERVER_FILE + POSITION
        return self._shared

    def items(self, ts: int, start_ts: int, seq: int, runs: Sequence[Run]) -> list[bytes]:
        """BEGIN (seqId ``seq``), one DML entry per run, COMMIT: an ``Entries.items`` each."""
        shared = self._time(ts)
        gtid = gtid_bytes(ts)
        fixed = FIXED + len(shared) + len(gtid)
        seqs = varint_run(seq, len(runs) + 2)
        q = seqs[0]
        begin = cached_prefix(_BEGIN, fixed + 2 * len(q), _BEGIN_SIZE)
        out = [b"".join((begin, shared, q, gtid, SEQ_ID, q, BEGIN_EVENT))]
        for q, (names, body) in zip(seqs[1:], runs, strict=False):
            size = fixed + 2 * len(q) + len(names)
            body_length = varint(len(body))
            event = 1 + len(body_length) + len(body)
            head = item_prefix(_DML, size, event)
            tail = (ENTRY_EVENT, varint(event), DML_EVENT, body_length, body)
            out.append(b"".join((head, shared, q, gtid, names, SEQ_ID, q, *tail)))
        q = seqs[-1]
        txid = b"%d" % start_ts  # binlog.transaction_id(start_ts)
        digits = len(txid) - 1
        ending: tuple[bytes, ...]
        if digits < len(COMMIT_EVENTS):
            commit = cached_prefix(_COMMIT, fixed + 2 * len(q), COMMIT_SIZES[digits])
            ending = (COMMIT_EVENTS[digits], txid)
        else:  # more digits than any TSO: no template
            body = commit_event(start_ts)
            commit = item_prefix(_COMMIT, fixed + 2 * len(q), len(body))
            ending = (ENTRY_EVENT, varint(len(body)), body)
        out.append(b"".join((commit, shared, q, gtid, SEQ_ID, q, *ending)))
        return out

    def single(
        self,
        ts: int,
        start_ts: int,
        seq: int,
        run: tuple[bytes, list[bytes], int],
        limit: int,
    ) -> list[bytes] | None:
        """The parts of one Envelope holding BEGIN, one DML entry and COMMIT, to join. ``run``
        is the DML entry's table names, its ``DMLEvent`` as parts and that event's size. None
        when the ``Entries`` would exceed ``limit``, the three seqId varints differ in more
        than their first byte or a ts has more digits than a TSO (``items`` then does the
        work). Lengths are summed from a cached
        frame, not measured, and every fragment is joined once."""
        q0 = varint(seq)
        low = seq & 0x7F
        digits = b"%d" % ts
        txid = b"%d" % start_ts  # binlog.transaction_id(start_ts)
        if len(q0) == 1 or low > 0x7D or len(txid) >= DIGITS or len(digits) >= DIGITS:
            return None
        key = ((ts >> LOGICAL_BITS) // 1000 << 16) | len(q0) << 10 | len(digits) << 5 | len(txid)
        frame = self._frames.get(key) or self._frame(key, ts, len(q0), len(digits), len(txid))
        begin, commit, gtid, commit_event, shared, fixed, constant = frame
        rest = q0[1:]
        q1 = _FIRST[low + 1] + rest
        q2 = _FIRST[low + 2] + rest
        names, body, size = run
        header = fixed + len(names)
        header_length = SHORT_VARINTS[header] if header < SHORT_LIMIT else varint(header)
        body_length = SHORT_VARINTS[size] if size < SHORT_LIMIT else varint(size)
        event = 1 + len(body_length) + size
        event_length = SHORT_VARINTS[event] if event < SHORT_LIMIT else varint(event)
        entry = 2 + len(header_length) + header + len(event_length) + event
        entry_length = SHORT_VARINTS[entry] if entry < SHORT_LIMIT else varint(entry)
        data = constant + len(entry_length) + entry
        if data > limit:
            return None
        return [
            WHOLE_DATA,
            SHORT_VARINTS[data] if data < SHORT_LIMIT else varint(data),
            begin, q0, gtid, digits, SEQ_ID, q0, BEGIN_EVENT,
            ITEM, entry_length, ENTRY_HEADER, header_length, _DML_START,
            shared, q1, gtid, digits, names, SEQ_ID, q1,
            ENTRY_EVENT, event_length, DML_EVENT, body_length, *body,
            commit, q2, gtid, digits, SEQ_ID, q2, commit_event, txid,
        ]  # fmt: skip

    def _frame(self, key: int, ts: int, seq_size: int, digits: int, txid: int) -> _Frame:
        """What ``single`` needs beyond the per-transaction values: the BEGIN and COMMIT
        items up to their seqId (time field included), the GTID head, the COMMIT event
        head, the time field, the size of a header without table names, and the bytes of
        the Entries that do not depend on the DML entry."""
        if len(self._frames) >= _FRAME_CACHE:
            self._frames.clear()
        shared = self._time(ts)
        gtid = GTID_HEADS[digits - 1]
        header = FIXED + len(shared) + len(gtid) + digits + 2 * seq_size
        begin = cached_prefix(_BEGIN, header, _BEGIN_SIZE) + shared
        commit = cached_prefix(_COMMIT, header, COMMIT_SIZES[txid - 1]) + shared
        commit_event = COMMIT_EVENTS[txid - 1]
        variable = header - START_SIZE - len(shared)
        constant = len(begin) + variable + len(BEGIN_EVENT)
        constant += len(commit) + variable + len(commit_event) + txid + len(ITEM)
        frame = (begin, commit, gtid, commit_event, shared, header, constant)
        self._frames[key] = frame
        return frame
