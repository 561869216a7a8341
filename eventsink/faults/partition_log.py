"""One partition's stream as the injector sees it: what was sent since the last WATERMARK, the
BOOTSTRAPs a restart would send again, the runs held back (``split-table``) or lost until a
restart (``ts-regression``), and the faults' decisions for each run of records."""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.message import MessageType, Record
from tisink.eventsink.faults.checksum import corrupt_run
from tisink.eventsink.faults.spec import FaultPlan
from tisink.eventsink.faults.triggers import Trigger
from tisink.eventsink.mq.producer import Mark

_DML = MessageType.DML
_DDL = MessageType.DDL
_BOOTSTRAP = MessageType.BOOTSTRAP
_WATERMARK = MessageType.WATERMARK

Added = tuple[str, int, int, int]
"""A fault's records in a batch: kind, index of the first, count, commit ts it fired at."""

_Run = tuple[Mark, Sequence[Record]]


class PartitionLog:
    """The state of one (topic, partition). ``apply`` turns a batch into the batch to send,
    the faults' copies in place, and says where each fault's records are."""

    def __init__(self, plan: FaultPlan, topic: str, partition: int) -> None:
        self.triggers = {
            spec.kind: Trigger(spec, topic, partition)
            for spec in plan.faults
            if spec.kind != "skew" and spec.applies_to(topic, partition)
        }
        self._corrupting = "corrupt-checksum" in self.triggers
        self._since: list[_Run] = []
        """Runs sent since the last WATERMARK (DML, DDL, BOOTSTRAP), as sent, and the runs
        ``ts-regression`` lost (in ``_lost`` too) where they were to be sent."""
        self._lost: list[_Run] = []
        """``ts-regression``: DML runs whose send failed, not delivered until the restart."""
        self._split: dict[str, list[_Run]] = {}
        """``split-table``: per table, the DML runs the second node still holds."""
        self._dml_since = 0
        self._bootstraps: dict[str, Record] = {}
        self._bootstraps_at_watermark: dict[str, Record] = {}
        self._watermark: Sequence[Record] | None = None
        self.last_ts = 0
        """The newest commit ts among the partition's marks (skew's clock)."""

    def apply(
        self, records: Sequence[Record], marks: Sequence[Mark]
    ) -> tuple[list[Record], list[Added]]:
        if not self.triggers and not marks:
            return list(records), []
        out: list[Record] = []
        added: list[Added] = []
        start = 0
        for mark in marks:
            run = records[start : start + mark.length]
            start += mark.length
            if mark.commit_ts > self.last_ts:
                self.last_ts = mark.commit_ts
            if mark.type is _WATERMARK:
                self._watermark_run(mark, run, out, added)
            else:
                self._change_run(mark, run, out, added)
        out.extend(records[start:])
        return out, added

    def _fire(self, kind: str, commit_ts: int) -> bool:
        trigger = self.triggers.get(kind)
        return trigger is not None and trigger.fires(commit_ts)

    @staticmethod
    def _add(
        kind: str, ts: int, copies: Sequence[Record], out: list[Record], added: list[Added]
    ) -> None:
        if copies:
            added.append((kind, len(out), len(copies), ts))
            out.extend(copies)

    def _watermark_run(
        self, mark: Mark, run: Sequence[Record], out: list[Record], added: list[Added]
    ) -> None:
        ts = mark.commit_ts
        self._release_split(None, out, added)
        self._restart(out, added)
        if self._fire("restart-replay", ts):  # before any WATERMARK: from the stream's start
            self._add("restart-replay", ts, self._replay(), out, added)
        out.extend(run)
        if self._fire("duplicate-watermark", ts):
            self._add("duplicate-watermark", ts, run, out, added)
        if self._watermark is not None and self._fire("stale-watermark", ts):
            self._add("stale-watermark", ts, self._watermark, out, added)
        self._watermark = run
        self._since.clear()
        self._dml_since = 0
        self._bootstraps_at_watermark = dict(self._bootstraps)

    def _change_run(
        self, mark: Mark, run: Sequence[Record], out: list[Record], added: list[Added]
    ) -> None:
        kind = mark.type
        if kind is _DDL:  # a barrier: what is held or lost is delivered before it
            self._release_split(None, out, added)
            self._restart(out, added)
        elif kind is _BOOTSTRAP:
            self._release_split(mark.table, out, added)
        elif kind is _DML and self._moved(mark, run, out, added):
            return
        if kind is _DML and self._corrupting:
            run = self._corrupt(mark, run, out, added)
        out.extend(run)
        if kind is _BOOTSTRAP:
            if run:
                self._bootstraps[mark.table] = run[-1]
        elif kind is not _DML and kind is not _DDL:
            return  # a HEARTBEAT: neither replayed nor duplicated
        self._since.append((mark, run))
        ts = mark.commit_ts
        if kind is _DDL and self._fire("duplicate-ddl", ts):
            self._add("duplicate-ddl", ts, run, out, added)
        if kind is not _DML:
            return
        self._dml_since += 1
        if mark.table in self._split:  # the second node's run lands after a newer one
            self._release_split(mark.table, out, added, behind=run)
        if self._fire("producer-retry", ts):
            self._add("producer-retry", ts, run, out, added)
        if self._dml_since >= 2 and self._fire("bab", ts):
            lost = {id(sent) for _, sent in self._lost}  # not sent yet: no copies of them
            copies = [r for _, sent in self._since if id(sent) not in lost for r in sent]
            self._add("bab", ts, copies, out, added)

    def _corrupt(
        self, mark: Mark, run: Sequence[Record], out: list[Record], added: list[Added]
    ) -> Sequence[Record]:
        """``corrupt-checksum`` at a DML run with a row checksum (its eligible messages): the
        run with that row's checksum wrong and ``corrupted`` set (``checksum.py``), in place of
        the run; copies made later (a replay) repeat it as sent."""
        corrupted = corrupt_run(run)
        if corrupted is None or not self._fire("corrupt-checksum", mark.commit_ts):
            return run
        new, index = corrupted
        added.append(("corrupt-checksum", len(out) + index, 1, mark.commit_ts))
        return new

    def _moved(
        self, mark: Mark, run: Sequence[Record], out: list[Record], added: list[Added]
    ) -> bool:
        """``split-table`` and ``ts-regression`` at a DML run: True when the run is not sent
        now (held by the second node, or lost until the restart). A run of a table the second
        node holds a run of is no point of either: it is sent, then the held run after it."""
        if mark.table in self._split:
            return False  # sent, then the held runs (``_change_run``)
        ts = mark.commit_ts
        if self._fire("split-table", ts):
            self._split[mark.table] = [(mark, run)]
            return True
        if self._fire("ts-regression", ts):
            self._lost.append((mark, run))
            self._since.append((mark, run))
            return True
        return False

    def _release_split(
        self,
        table: str | None,
        out: list[Record],
        added: list[Added],
        behind: Sequence[Record] = (),
    ) -> None:
        """Send what the second node holds of ``table`` (None: of every table). ``behind`` is
        the newer run of the table it went behind, sent again after it: the injector does not
        see rows, and one both runs change must not end on the older change (TiCDC keeps a
        row in one region, so on one node)."""
        tables = list(self._split) if table is None else [table]
        for name in tables:
            for mark, run in self._split.pop(name, ()):
                self._add("split-table", mark.commit_ts, [*run, *behind], out, added)
                self._since.append((mark, run))

    def _restart(self, out: list[Record], added: list[Added]) -> None:
        """``ts-regression``'s restart after a lost send: the runs since the last WATERMARK
        again, in order, the lost ones among them for the first time."""
        if not self._lost:
            return
        ts = self._lost[0][0].commit_ts
        self._lost.clear()
        self._add("ts-regression", ts, self._replay(), out, added)

    def drain(self) -> tuple[list[Record], list[Added]]:
        """What is still held or lost when the sinks close: sent as at a WATERMARK."""
        out: list[Record] = []
        added: list[Added] = []
        self._release_split(None, out, added)
        self._restart(out, added)
        return out, added

    def _replay(self) -> list[Record]:
        """What a restarted sink sends after the last WATERMARK: the same runs, each table's
        first row after its BOOTSTRAP (as a new sink sends one before a table's first row)
        unless a BOOTSTRAP or DDL of it comes first. The runs ``ts-regression`` lost are
        among them: a restart (and ``restart-replay``, at a WATERMARK) comes after them."""
        out: list[Record] = []
        announced: set[str] = set()
        for mark, run in self._since:
            if mark.type is not _DML:
                announced.add(mark.table)
            elif mark.table not in announced:
                announced.add(mark.table)
                bootstrap = self._bootstraps_at_watermark.get(mark.table)
                if bootstrap is not None:
                    out.append(bootstrap)
            out.extend(run)
        return out
