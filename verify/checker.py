"""The rules a CDC consumer relies on, checked per partition in offset order, on the messages
a protocol's decoder gives (``codec.decoded.DecodedMessage``).

A consumer reads each partition on its own, so every rule is judged within one partition:

* ``schema-before-dml``: a table's first DML comes after a BOOTSTRAP or a DDL whose
  ``tableSchema`` is that table (names compared; the DML's ``tableID`` is physical), or
  carries its schema itself (Debezium, DTS).
* ``schema-version-announced``: the DML's ``schemaVersion`` equals the ``version`` of such an
  announcement for its table seen earlier.
* ``watermark-monotonic``: WATERMARK commitTs never decreases (a repeat is fine).
* ``dml-behind-watermark``: after WATERMARK W, no DML has commitTs <= W.
* ``handle-commit-ts-order``: per row handle (the handle key of the announced schema; tables
  without one are skipped) commitTs never decreases. The table and index-value dispatchers send
  one handle to one partition, so the check stays within the partition. A change that goes
  back is valid when the newer change it went below comes again after it, before the next
  WATERMARK and before any copy of the older one: a restart sends a row's changes again in
  order (pingcap/ticdc#4051, tiflow#11823), and the row ends on its newest change.

A DML whose commitTs is below an earlier DML's of its partition, and above the partition's last
WATERMARK, is no violation: TiCDC writes a table split across capture nodes from both into one
partition, and a restart after a failed send brings rows never delivered after newer ones
(pingcap/ticdc#3040, #4130, #5508, #4051). The report lists each run of such records as
``commit ts regressed`` (topic, partition, offsets, the newer commitTs and its offset), as a
consumer must apply them rather than skip them as old.

Delivery is at-least-once: a batch whose acknowledgement was lost is written again, and a
restarted TiCDC (or DTS task) sends a partition again from its last checkpoint. A record whose
key and value equal one of the partition's last ``REDELIVERY_WINDOW`` records' is counted as
``DUPLICATE`` and not checked again, as a deduplicating consumer skips it (headers may differ:
a copy carries the next DTS ``ps``, which the framing check follows); the report lists each run
of such records as a redelivery, not as a violation. A record that is no copy is checked as
usual, so a row out of order or behind a watermark still fails.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tisink.codec.decoded import DML, FRAME_TYPES, WATERMARK, AnnouncedSchema, DecodedMessage
from tisink.codec.errors import MessageDecodeError
from tisink.codec.message import Headers
from tisink.codec.protocol import Decoder, DecodesWithHeaders, ReadsChecksums, SlicesMessages
from tisink.model.events import RowChecksum
from tisink.verify.report import CorruptedChecksum, VerifyReport, Violation

TableKey = tuple[str, str]


def _frozen(value: Any) -> Any:
    """A hashable stand-in for a decoded column value (Avro records decode to dicts)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


EMPTY = "EMPTY"
"""The kind of a record that holds no message (an Open Protocol batch of no events, which
TiCDC's reader skips): counted, so the kinds add up to the records read."""

REDELIVERY_WINDOW = 65536
"""Records per partition remembered to recognise a redelivered batch (a retried batch is far
smaller)."""


class PartitionChecker:
    """The state of one partition: announced schemas, the last watermark, handle commitTs."""

    def __init__(self, topic: str, partition: int, report: VerifyReport) -> None:
        self.topic = topic
        self.partition = partition
        self.label = f"{topic}[{partition}]"
        self._report = report
        self._schemas: dict[TableKey, dict[int, AnnouncedSchema]] = {}
        self._without_schema: set[TableKey] = set()
        self._watermark: tuple[int, int] | None = None
        self._handles: dict[TableKey, dict[Any, int]] = {}
        """Per table, handle -> ``commit_ts << 64 | offset`` of its last DML: one int per
        handle keeps a million-row stream's state under 100 MB (a tuple of two took twice)."""
        self._newest: tuple[int, int] | None = None
        """The newest DML commitTs so far and its offset (a regression goes below it)."""
        self.fingerprint = 0
        """The fingerprint of the record being checked (``StreamChecker`` sets it)."""
        self._prints: dict[int, int] = {}
        """Offset -> fingerprint of the last DMLs since the last WATERMARK, at most
        ``REDELIVERY_WINDOW`` (what a copy that heals a regression must equal)."""
        self._pending: list[tuple[Violation, int, int]] = []
        """Handle regressions since the last WATERMARK not healed yet: the violation, the
        fingerprint of the record that went back and of the newer one it went below."""
        self._recent: dict[int, None] = {}
        self.copying = False
        """Whether the sliced message under way began with a redelivered first slice."""

    def redelivered(self, fingerprint: int, offset: int) -> bool:
        """True when a record with this fingerprint is among the recent ones; remembers it,
        and adds a redelivered one to the report's run of redeliveries at ``offset``."""
        recent = self._recent
        if fingerprint in recent:
            self._report.add_redelivery(self.topic, self.partition, offset)
            if self._pending:
                self._heal(fingerprint)
            return True
        recent[fingerprint] = None
        if len(recent) > REDELIVERY_WINDOW:
            del recent[next(iter(recent))]
        return False

    def violation(self, offset: int, rule: str, detail: str, message: str) -> Violation:
        found = Violation(self.topic, self.partition, offset, rule, detail, message)
        self._report.add_violation(found)
        return found

    def _heal(self, fingerprint: int) -> None:
        """A copy arrived: one of the newer change a row went below heals that regression
        (a restart sent the row's changes again in order), unless a copy of the change that
        went back came first (then the row ends on the older change)."""
        kept: list[tuple[Violation, int, int]] = []
        for found, older, newer in self._pending:
            if fingerprint == newer:
                self._report.retract(found)
            elif fingerprint != older:
                kept.append((found, older, newer))
        self._pending = kept

    def check(self, offset: int, message: DecodedMessage) -> None:
        """Check one message; a schema it announces (a BOOTSTRAP's, a DDL's, or a row's own in
        protocols whose rows carry their schema) counts from this message on."""
        if message.table_schema is not None:
            schema = message.table_schema
            key = (schema.schema, schema.table)
            self._schemas.setdefault(key, {})[schema.version] = schema
            self._report.tables.add(schema.name)
        if message.kind == DML and message.type not in FRAME_TYPES:
            self._dml(offset, message)
        elif message.kind == WATERMARK:
            self._watermark_at(offset, message)

    def _watermark_at(self, offset: int, message: DecodedMessage) -> None:
        ts = message.commit_ts
        if self._watermark is not None and ts < self._watermark[0]:
            last_ts, last_offset = self._watermark
            self.violation(
                offset,
                "watermark-monotonic",
                f"watermark {ts} is below watermark {last_ts} at offset {last_offset}",
                message.summary(),
            )
            return
        self._pending.clear()
        self._prints.clear()
        self._watermark = (ts, offset)

    def _dml(self, offset: int, message: DecodedMessage) -> None:
        key = (message.database, message.table)
        self._report.tables.add(message.table_name)
        if self._watermark is not None and message.commit_ts <= self._watermark[0]:
            self.violation(
                offset,
                "dml-behind-watermark",
                f"commitTs {message.commit_ts} <= watermark {self._watermark[0]} "
                f"at offset {self._watermark[1]}",
                message.summary(),
            )
        elif self._newest is not None and message.commit_ts < self._newest[0]:
            self._report.add_regression(
                self.topic, self.partition, offset, message.commit_ts, self._newest
            )
        if self._newest is None or message.commit_ts > self._newest[0]:
            self._newest = (message.commit_ts, offset)
        prints = self._prints
        if offset not in prints:
            prints[offset] = self.fingerprint
            if len(prints) > REDELIVERY_WINDOW:
                del prints[next(iter(prints))]
        versions = self._schemas.get(key)
        if versions is None:
            # reported once per table: every later DML of it would repeat the same finding
            if key not in self._without_schema:
                self._without_schema.add(key)
                self.violation(
                    offset,
                    "schema-before-dml",
                    f"first DML of {message.table_name} has no BOOTSTRAP or DDL tableSchema "
                    "before it",
                    message.summary(),
                )
            return
        schema = versions.get(message.schema_version)
        if schema is None:
            announced = ", ".join(str(v) for v in versions)
            self.violation(
                offset,
                "schema-version-announced",
                f"schemaVersion {message.schema_version} of {message.table_name} was not "
                f"announced (announced: {announced})",
                message.summary(),
            )
            return
        if schema.handle_key:
            self._handle_order(offset, key, schema.handle_key, message)

    def _handle_order(
        self, offset: int, key: TableKey, columns: tuple[str, ...], message: DecodedMessage
    ) -> None:
        handles = self._handles.get(key)
        if handles is None:
            handles = self._handles[key] = {}
        commit_ts = message.commit_ts
        seen = set()
        for image in (message.data, message.old):
            handle = _handle_of(image, columns)
            if handle is None or handle in seen:
                continue
            seen.add(handle)
            last = handles.get(handle)
            if last is not None and commit_ts < last >> 64:
                found = self.violation(
                    offset,
                    "handle-commit-ts-order",
                    f"handle {_describe(columns, handle)} of {message.table_name}: commitTs "
                    f"{commit_ts} is below {last >> 64} at offset {last & _OFFSET_MASK}",
                    message.summary(),
                )
                newer = self._prints.get(last & _OFFSET_MASK)
                if newer is not None:
                    self._pending.append((found, self.fingerprint, newer))
                continue
            handles[handle] = commit_ts << 64 | offset


_OFFSET_MASK = (1 << 64) - 1


def _handle_of(image: Mapping[str, Any] | None, columns: tuple[str, ...]) -> Any:
    """The handle's value, or the tuple of its values for a handle of several columns (a
    one-column handle needs no tuple of its own); None when the image lacks a column."""
    if not image or any(c not in image for c in columns):
        return None
    if len(columns) == 1:
        return _frozen(image[columns[0]])
    return tuple(_frozen(image[c]) for c in columns)


def _describe(columns: tuple[str, ...], handle: Any) -> str:
    values = handle if len(columns) > 1 else (handle,)
    return "(" + ", ".join(f"{c}={v!r}" for c, v in zip(columns, values, strict=True)) + ")"


class StreamChecker:
    """Feeds records of any number of partitions, each in offset order, into a report."""

    def __init__(
        self,
        report: VerifyReport,
        new_decoder: Callable[[], Decoder],
        *,
        continuous_offsets: bool = False,
    ) -> None:
        self.report = report
        self._new_decoder = new_decoder
        self._partitions: dict[tuple[str, int], tuple[PartitionChecker, Decoder]] = {}
        self._continuous = continuous_offsets
        #: (topic, partition) -> the offset after the last record read
        self.ends: dict[tuple[str, int], int] = {}

    def partition(self, topic: str, partition: int) -> tuple[PartitionChecker, Decoder]:
        """The checker and the decoder (decoders keep state per partition) of one partition."""
        found = self._partitions.get((topic, partition))
        if found is None:
            checker = PartitionChecker(topic, partition, self.report)
            found = self._partitions[(topic, partition)] = (checker, self._new_decoder())
        return found

    @staticmethod
    def _redelivered(
        checker: PartitionChecker,
        decoder: Decoder,
        offset: int,
        key: bytes | None,
        value: bytes | None,
    ) -> bool:
        """Whether the record is a copy of a recent one: by its bytes, or for a later slice
        of a sliced message by its first slice (``SlicesMessages``)."""
        if isinstance(decoder, SlicesMessages) and decoder.slice_index(value):
            return checker.copying
        checker.fingerprint = hash((key, value))
        checker.copying = checker.redelivered(checker.fingerprint, offset)
        return checker.copying

    def check_record(
        self,
        topic: str,
        partition: int,
        offset: int,
        value: bytes | None,
        key: bytes | None = None,
        headers: Headers | None = None,
    ) -> None:
        """Decode and check one record; an undecodable one is a ``decodable`` violation.
        ``headers`` (None: the source has none) go to decoders that read them
        (``decode_with_headers``, e.g. Tencent DTS's ``ps`` check)."""
        checker, decoder = self.partition(topic, partition)
        expected = self.ends.get((topic, partition), 0)
        if self._continuous and offset != expected:
            missing = f"{offset - expected} record(s) missing" if offset > expected else "again"
            checker.violation(
                offset,
                "offsets-continuous",
                f"offset {offset} after {expected - 1}: {missing}",
                f"record at offset {offset}",
            )
        self.ends[topic, partition] = max(expected, offset + 1)
        self.report.messages += 1
        self.report.partitions[checker.label] += 1
        framed = headers is not None and isinstance(decoder, DecodesWithHeaders)
        if self._redelivered(checker, decoder, offset, key, value):
            self.report.counts["DUPLICATE"] += 1
            self.report.kinds["DUPLICATE"] += 1
            if framed:
                # a copy is numbered as a new record (DTS ``ps``): the framing follows it
                self._decode(checker, decoder, offset, key, value, headers)
            return
        messages = self._decode(checker, decoder, offset, key, value, headers)
        # one kind per record, so the kinds add up to ``messages``
        if messages is None:
            self.report.kinds["UNDECODABLE"] += 1
            return
        self.report.kinds[messages[0].kind if messages else EMPTY] += 1
        for message in messages:
            self.report.counts[message.type] += 1
            checker.check(offset, message)
        checksum = decoder.last_checksum if isinstance(decoder, ReadsChecksums) else None
        if checksum is not None and messages:
            self._checksum(checker, offset, messages[0], checksum)

    def _checksum(
        self, checker: PartitionChecker, offset: int, message: DecodedMessage, checksum: RowChecksum
    ) -> None:
        """A row checksum the decoder read (Simple, Avro with ``[integrity]`` on): counted;
        one marked ``corrupted`` is listed (TiCDC's flag: ``corrupt-checksum``, or a feed's
        corrupted row)."""
        self.report.checksummed += 1
        if checksum.corrupted:
            self.report.corrupted_checksums.append(
                CorruptedChecksum(
                    checker.topic,
                    checker.partition,
                    offset,
                    message.table_name,
                    message.type,
                    message.commit_ts,
                    checksum.version,
                    checksum.current,
                    checksum.previous,
                )
            )

    def _decode(
        self,
        checker: PartitionChecker,
        decoder: Decoder,
        offset: int,
        key: bytes | None,
        value: bytes | None,
        headers: Headers | None,
    ) -> list[DecodedMessage] | None:
        """The record's messages; None for an undecodable record, a ``decodable`` violation."""
        try:
            if headers is not None and isinstance(decoder, DecodesWithHeaders):
                return list(decoder.decode_with_headers(key, value, headers))
            return list(decoder.decode(key, value))
        except MessageDecodeError as err:
            self.report.counts["UNDECODABLE"] += 1
            size = "null" if value is None else f"{len(value)} bytes"
            checker.violation(offset, "decodable", str(err), f"payload of {size}")
            return None

    def check_acknowledged(self, acknowledged: Mapping[tuple[str, int], int]) -> None:
        """After the whole stream was read: each partition must hold every offset below the
        end the sink saw acknowledged (a shorter partition means the broker lost messages)."""
        unfinished = {entry.partition(":")[0] for entry in self.report.unfinished}
        for (topic, partition), end in sorted(acknowledged.items()):
            held = self.ends.get((topic, partition), 0)
            checker = self.partition(topic, partition)[0]
            if held >= end or checker.label in unfinished:
                continue
            checker.violation(
                held,
                "acknowledged-stored",
                f"the sink saw offsets up to {end - 1} acknowledged; the partition holds "
                f"{held} message(s): the broker lost {end - held}",
                f"end of {checker.label}",
            )
