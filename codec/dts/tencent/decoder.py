"""Tencent DTS Protobuf records read back as Tencent's demo consumer reads them (``tisink verify``).

Per partition, in offset order: the ``ps`` header continuous (a repeat is a duplicate the demo
skips, a jump is lost messages; 1 starts over, as in the demo), ``Envelope.version`` 1, slices
``index`` 0..total-1 in a row, then each ``Entry``: BEGIN and COMMIT paired by GTID around the
DML entries, a CHECKPOINT or HEARTBEAT alone in its ``Entries`` and never inside a transaction,
each row's images as long as ``columns`` (INSERT only new, DELETE only old), ``seqId``
increasing within a transaction. seqIds follow commit ts (``binlog``), and a partition carries
each table's transactions in commit order but interleaves tables as their sinks flush, so
across transactions they are not checked.

DML rows become DecodedMessages carrying their own schema (DTS announces tables through each
DML's ``columns``, ``isKey`` giving the handle key; versions are not carried, so 0); a
CHECKPOINT is a WATERMARK. Commit timestamps come from tisink's synthetic GTIDs (``binlog``).
A broken rule raises MessageDecodeError naming it, after the record's state was taken in.
"""

from __future__ import annotations

from tisink.codec.decoded import DDL, DML, WATERMARK, AnnouncedSchema, DecodedMessage
from tisink.codec.dts.tencent import reader
from tisink.codec.dts.tencent.enums import HEADER_VERSION, DMLType, MessageType
from tisink.codec.dts.tencent.framing import PARTITION_SEQUENCE_HEADER, Framing, Headers
from tisink.codec.errors import MessageDecodeError

_DML_NAMES = {DMLType.INSERT: "INSERT", DMLType.UPDATE: "UPDATE", DMLType.DELETE: "DELETE"}


def commit_ts_of(gtid: str) -> int:
    """The commit ts in a synthetic GTID ``uuid:ts`` or GTID set ``uuid:1-ts``; ValueError
    when it is neither."""
    _, colon, number = gtid.rpartition(":")
    if not colon:
        raise ValueError(f"GTID {gtid!r} is not tisink's uuid:commitTs")
    return int(number.rpartition("-")[2])


class TencentProtobufDecoder:
    """Implements ``codec.protocol.Decoder`` for one partition."""

    def __init__(self) -> None:
        self._framing = Framing(PARTITION_SEQUENCE_HEADER)
        self._open_gtid: str | None = None
        self._last_seq: int | None = None

    def decode(self, key: bytes | None, value: bytes | None) -> list[DecodedMessage]:
        """The DecodedMessages of one record, without the ``ps`` check (no headers known)."""
        return self._decode(value, [])

    def slice_index(self, value: bytes | None) -> int | None:
        """The Envelope's ``index`` (``SlicesMessages``)."""
        if value is None:
            return None
        try:
            return reader.envelope(value).index
        except (ValueError, UnicodeDecodeError):
            return None

    def decode_with_headers(
        self, key: bytes | None, value: bytes | None, headers: Headers
    ) -> list[DecodedMessage]:
        """As ``decode``, checking the ``ps`` header first; a duplicate is skipped."""
        problems: list[str] = []
        if not self._framing.sequence(headers, problems):
            raise MessageDecodeError("; ".join(problems))
        return self._decode(value, problems)

    def _decode(self, value: bytes | None, problems: list[str]) -> list[DecodedMessage]:
        if value is None:
            raise MessageDecodeError("null value (a tombstone), not a Tencent DTS Envelope")
        try:
            data = self._framing.reassemble(reader.envelope(value), problems)
            items = reader.entries(data) if data is not None else []
        except (ValueError, UnicodeDecodeError) as err:
            raise MessageDecodeError(f"not a Tencent DTS Protobuf Envelope: {err}") from err
        out: list[DecodedMessage] = []
        for position, entry in enumerate(items):
            try:
                self._entry(entry, position, len(items), out, problems)
            except (ValueError, UnicodeDecodeError) as err:
                problems.append(f"entry {position}: {err}")
        if problems:
            raise MessageDecodeError("; ".join(problems))
        return out

    def _entry(
        self,
        entry: reader.Entry,
        position: int,
        count: int,
        out: list[DecodedMessage],
        problems: list[str],
    ) -> None:
        header = entry.header
        kind = header.message_type
        name = MessageType(kind).name if kind in MessageType._value2member_map_ else str(kind)
        where = f"{name} seqId {header.seq_id}"
        if header.version != HEADER_VERSION:
            problems.append(f"{where}: Header.version {header.version}")
        member = reader.EVENT_FIELD.get(kind)
        if member is not None and entry.event != member:
            problems.append(f"{where}: Event member {entry.event} set, not {member}")
        in_transaction = kind in (MessageType.DML, MessageType.COMMIT) and self._open_gtid
        last = self._last_seq
        if in_transaction and last is not None and header.seq_id <= last:
            problems.append(f"{where}: seqId not above {last} of its transaction")
        self._last_seq = header.seq_id
        open_gtid = self._open_gtid
        if kind == MessageType.BEGIN:
            if open_gtid is not None:
                problems.append(f"{where}: BEGIN while {open_gtid} is still open")
            self._open_gtid = header.gtid
        elif kind == MessageType.COMMIT:
            if open_gtid != header.gtid:
                problems.append(f"{where}: COMMIT of {header.gtid} but open is {open_gtid}")
            if not entry.body.get(1):
                problems.append(f"{where}: COMMIT without transactionId")
            self._open_gtid = None
        elif kind == MessageType.DML:
            if open_gtid != header.gtid:
                problems.append(f"{where}: DML of {header.gtid} outside its BEGIN/COMMIT")
            self._dml(entry, where, out, problems)
        elif kind == MessageType.DDL:
            if open_gtid is not None:
                problems.append(f"{where}: DDL inside transaction {open_gtid}")
            out.append(DecodedMessage(DDL, "DDL", commit_ts_of(header.gtid)))
        elif kind in (MessageType.CHECKPOINT, MessageType.HEARTBEAT):
            if position != 0 or count != 1:
                problems.append(f"{where}: {name} is item {position} of {count}, not alone")
            if open_gtid is not None:
                problems.append(f"{where}: {name} inside transaction {open_gtid}")
            if kind == MessageType.CHECKPOINT:
                synced = entry.body.get(1, b"").decode()
                out.append(DecodedMessage(WATERMARK, WATERMARK, commit_ts_of(synced)))
        elif kind == MessageType.ROLLBACK:
            self._open_gtid = None

    @staticmethod
    def _dml(
        entry: reader.Entry, where: str, out: list[DecodedMessage], problems: list[str]
    ) -> None:
        header = entry.header
        names = [c.name for c in entry.columns]
        schema = AnnouncedSchema(
            header.schema_name,
            header.table_name,
            0,
            0,
            tuple(c.name for c in entry.columns if c.is_key),
        )
        dml_type = entry.dml_type
        op = _DML_NAMES.get(dml_type)  # type: ignore[call-overload]
        if op is None:
            problems.append(f"{where}: unknown dmlEventType {dml_type}")
            return
        commit_ts = commit_ts_of(header.gtid)
        wants_old = dml_type != DMLType.INSERT
        wants_new = dml_type != DMLType.DELETE
        for number, (old, new) in enumerate(entry.rows):
            for side, values, wanted in (("old", old, wants_old), ("new", new, wants_new)):
                if len(values) != (len(names) if wanted else 0):
                    problems.append(
                        f"{where}: row {number} of {header.schema_name}.{header.table_name} has "
                        f"{len(values)} {side} values for {len(names)} columns"
                    )
                    return
            out.append(
                DecodedMessage(
                    DML,
                    op,
                    commit_ts,
                    database=header.schema_name,
                    table=header.table_name,
                    table_schema=schema,
                    data=_image(names, new) if wants_new else None,
                    old=_image(names, old) if wants_old else None,
                )
            )


def _image(names: list[str], values: list[object]) -> dict[str, object]:
    return {
        name: value
        for name, value in zip(names, values, strict=True)
        if value is not reader.NOT_AVAILABLE
    }
