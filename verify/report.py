"""The verify result: what was read, which rules broke where, and a plain-text rendering.

The text is Rich-free so the CLI, logs and CI output show the same lines.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

RULES: dict[str, str] = {
    "decodable": "every message decodes as a message of the protocol (and passes its own rules)",
    "schema-before-dml": "a table's first DML follows its BOOTSTRAP or a DDL with its tableSchema",
    "schema-version-announced": "a DML's schemaVersion was announced for its table before it",
    "watermark-monotonic": "WATERMARK commitTs never goes back",
    "dml-behind-watermark": "no DML after WATERMARK W has commitTs <= W",
    "handle-commit-ts-order": "a row handle's commitTs never goes back, unless its newer "
    "change comes again after it before the next WATERMARK (a restart)",
    "offsets-continuous": "a file partition's offsets run 0, 1, 2... with none missing",
    "acknowledged-stored": "every message the sink saw acknowledged is still in its partition",
    "layout-path": "storage: every file is part of TiCDC's storage layout",
    "schema-file": "storage: schema files are named by their version and checksum, one per "
    "table version with data",
    "index-newest": "storage: each index names its directory's newest file; files numbered "
    "1, 2, 3...",
    "file-complete": "storage: every data file reads to its end, its rows in their table's "
    "directory",
    "commit-order": "storage: a table's commit ts never goes back over its files",
    "row-once": "storage: no row stored twice; each table holds the rows the sink acknowledged",
    "checkpoint-honest": "storage: metadata's checkpoint covers only rows its indexes cover",
}
"""Rule name -> what it promises, in the order the report lists them."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule at one message."""

    topic: str
    partition: int
    offset: int
    rule: str
    detail: str
    message: str
    """The message's one-line summary (or the raw payload's size for undecodable ones)."""

    def location(self) -> str:
        return f"{self.topic}[{self.partition}]@{self.offset}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.location()} {self.rule}: {self.detail} | {self.message}"


@dataclass(slots=True)
class Redelivery:
    """Consecutive records of one partition that repeat earlier ones."""

    topic: str
    partition: int
    first_offset: int
    last_offset: int
    messages: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Regression:
    """Consecutive records of one partition whose commitTs is below a DML's before them (and
    above the partition's last WATERMARK): valid at-least-once traffic (TiCDC's
    table-across-nodes, a restart after a failed send), which a consumer must not skip."""

    topic: str
    partition: int
    first_offset: int
    last_offset: int
    messages: int
    commit_ts: int
    """The first record's commitTs."""
    above_ts: int
    """The newest commitTs before it, at ``above_offset``."""
    above_offset: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        span = f"{self.first_offset}" + (
            f"-{self.last_offset}" if self.last_offset != self.first_offset else ""
        )
        return (
            f"{self.topic}[{self.partition}]@{span}: commitTs {self.commit_ts} is below "
            f"{self.above_ts} at offset {self.above_offset} ({self.messages} message(s))"
        )


@dataclass(slots=True)
class CorruptedChecksum:
    """A row message whose checksum says TiCDC found its data not matching TiDB's checksum
    (``corrupted``): delivered, and flagged, as TiCDC does under ``[integrity]
    corruption-handle-level = "warn"``; a consumer verifying checksums finds it and decides
    (``examples/consumers/checksum_consumer.py``: report and apply, skip, or stop)."""

    topic: str
    partition: int
    offset: int
    table: str
    type: str
    commit_ts: int
    version: int
    current: int
    previous: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return (
            f"{self.topic}[{self.partition}]@{self.offset}: {self.type} {self.table} "
            f"commitTs={self.commit_ts} checksum version {self.version} corrupted "
            f"(current {self.current}, previous {self.previous})"
        )


@dataclass
class VerifyReport:
    """Counts and the first ``max_violations`` violations of one verify run."""

    source: str
    encoding_format: str = "json"
    topics: list[str] = field(default_factory=list)
    max_violations: int = 20
    allow_empty: bool = False
    """An empty stream passes only when the caller said it expects one: reading nothing
    verifies nothing (a mistyped topic or folder would otherwise pass)."""
    unit: str = "messages"
    """What ``messages`` counts: records of a stream, or ``files`` of a storage layout."""
    messages: int = 0
    """Records read (a storage layout: files read, data, schema and metadata files alike);
    ``kinds`` splits the same total."""
    counts: Counter[str] = field(default_factory=Counter)
    """Decoded events by type (INSERT, UPDATE, CREATE, CHECKPOINT...): one per row, so a
    record holding several rows (Open Protocol's batches) counts each."""
    kinds: Counter[str] = field(default_factory=Counter)
    """Records by message kind (DML, DDL, BOOTSTRAP, WATERMARK, HEARTBEAT, plus DUPLICATE,
    UNDECODABLE and EMPTY; a storage layout: files by kind), one kind per record, so they add
    up to ``messages``: the units of a play summary's ``messages``."""
    partitions: Counter[str] = field(default_factory=Counter)
    tables: set[str] = field(default_factory=set)
    violations: list[Violation] = field(default_factory=list)
    violation_counts: Counter[str] = field(default_factory=Counter)
    unfinished: list[str] = field(default_factory=list)
    """Partitions whose end was not reached before the timeout ("topic[p]: why")."""
    redeliveries: list[Redelivery] = field(default_factory=list)
    """Runs of records that repeat earlier ones (at-least-once delivery: replays, retries)."""
    regressions: list[Regression] = field(default_factory=list)
    """Runs of records whose commitTs went back inside their partition, not behind a
    WATERMARK (split tables, restarts after a failed send): reported, not violations."""
    corrupted_checksums: list[CorruptedChecksum] = field(default_factory=list)
    """Row messages whose checksum is marked ``corrupted``: reported, not violations of
    delivery (the row arrived; its data is what TiCDC flags)."""
    checksummed: int = 0
    """Row messages that carried a row checksum (``[integrity]`` on)."""

    def add_regression(
        self, topic: str, partition: int, offset: int, commit_ts: int, above: tuple[int, int]
    ) -> None:
        """Note a record at ``offset`` whose ``commit_ts`` is below ``above`` (commitTs,
        offset) of its partition: it extends the partition's last run when it follows it."""
        runs = self.regressions
        for run in reversed(runs):
            if run.topic == topic and run.partition == partition:
                if run.last_offset + 1 == offset:
                    run.last_offset = offset
                    run.messages += 1
                    return
                break
        runs.append(Regression(topic, partition, offset, offset, 1, commit_ts, *above))

    def add_redelivery(self, topic: str, partition: int, offset: int) -> None:
        """Count a repeated record at ``offset``: it extends the partition's last run when it
        follows it, else starts a new run."""
        runs = self.redeliveries
        for run in reversed(runs):
            if run.topic == topic and run.partition == partition:
                if run.last_offset + 1 == offset:
                    run.last_offset = offset
                    run.messages += 1
                    return
                break
        runs.append(Redelivery(topic, partition, offset, offset, 1))

    def retract(self, violation: Violation) -> None:
        """Take back a violation a later record showed to be valid (a row's regression that
        a restart healed by sending the newer change again)."""
        rule = violation.rule
        self.violation_counts[rule] -= 1
        if self.violation_counts[rule] <= 0:
            del self.violation_counts[rule]
        for index, kept in enumerate(self.violations):
            if kept is violation:
                del self.violations[index]
                break

    @property
    def empty(self) -> bool:
        """Nothing was read: no record of any partition (no file of a storage layout)."""
        return self.messages == 0

    @property
    def ok(self) -> bool:
        """No violation, every partition read to its end, and something read (unless an
        empty stream was allowed)."""
        return (
            not self.violation_counts
            and not self.unfinished
            and (self.allow_empty or not self.empty)
        )

    def add_violation(self, violation: Violation) -> None:
        self.violation_counts[violation.rule] += 1
        if len(self.violations) < self.max_violations:
            self.violations.append(violation)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "source": self.source,
            "encoding_format": self.encoding_format,
            "topics": list(self.topics),
            "allow_empty": self.allow_empty,
            "unit": self.unit,
            "messages": self.messages,
            "messages_by_kind": dict(sorted(self.kinds.items())),
            "counts": dict(sorted(self.counts.items())),
            "partitions": dict(sorted(self.partitions.items())),
            "tables": sorted(self.tables),
            "violation_counts": dict(sorted(self.violation_counts.items())),
            "violations": [v.to_dict() for v in self.violations],
            "unfinished": list(self.unfinished),
            "redeliveries": [r.to_dict() for r in self.redeliveries],
            "regressions": [r.to_dict() for r in self.regressions],
            "checksummed": self.checksummed,
            "corrupted_checksums": [c.to_dict() for c in self.corrupted_checksums],
        }


def render_text(report: VerifyReport) -> str:
    """The report as plain lines for a terminal or a log."""
    lines = [
        f"verify {report.source} ({report.encoding_format}): {_verdict(report)}",
        f"topics: {', '.join(report.topics) or '-'}",
        f"{report.unit}: {report.messages}" + (f" ({_join(report.kinds)})" if report.kinds else ""),
        f"events: {_join(report.counts) or '-'}",
        f"partitions: {_join(report.partitions) or '-'}",
        f"tables: {', '.join(sorted(report.tables)) or '-'}",
    ]
    lines.extend(f"unfinished: {entry}" for entry in report.unfinished)
    if report.redeliveries:
        runs = report.redeliveries
        copies = sum(run.messages for run in runs)
        lines.append(
            f"redelivered: {copies} message(s) in {len(runs)} run(s), as at-least-once delivery "
            "(replays, retries) brings them; skipped, not violations"
        )
    if report.regressions:
        regressed = report.regressions
        moved = sum(run.messages for run in regressed)
        lines.append(
            f"commit ts regressed: {moved} message(s) in {len(regressed)} run(s) below a newer "
            "commitTs of their partition, above its last WATERMARK, as split tables and "
            "restarts after a failed send bring them; valid, not violations (a consumer must "
            "apply them, not skip them as old):"
        )
        listed = regressed[: report.max_violations]
        lines.extend(f"  {run}" for run in listed)
        if len(listed) < len(regressed):
            lines.append(f"  ... and {len(regressed) - len(listed)} more run(s)")
    if report.corrupted_checksums:
        flagged = report.corrupted_checksums
        lines.append(
            f"checksum corrupted: {len(flagged)} of {report.checksummed} row message(s) with a "
            "row checksum are marked corrupted (TiCDC found the row's data not matching the "
            "checksum TiDB stored and delivered it flagged); delivered, not violations of "
            "delivery (a consumer verifying checksums finds them):"
        )
        shown_flags = flagged[: report.max_violations]
        lines.extend(f"  {entry}" for entry in shown_flags)
        if len(shown_flags) < len(flagged):
            lines.append(f"  ... and {len(flagged) - len(shown_flags)} more")
    if report.violation_counts:
        lines.append("violations:")
        for rule in RULES:
            if report.violation_counts[rule]:
                lines.append(f"  {rule}: {report.violation_counts[rule]} ({RULES[rule]})")
        shown = len(report.violations)
        total = sum(report.violation_counts.values())
        lines.append(f"first {shown} of {total}:" if shown < total else "each:")
        lines.extend(f"  {violation}" for violation in report.violations)
    return "\n".join(lines)


def _verdict(report: VerifyReport) -> str:
    """OK or FAILED; an empty stream says so on this first line, failed or allowed."""
    if not report.empty:
        return "OK" if report.ok else "FAILED"
    read = f"nothing was read (no {report.unit})"
    if report.ok:
        return f"OK: {read}, as --allow-empty allows"
    if report.violation_counts or report.unfinished:
        return f"FAILED: {read}"
    return f"FAILED: {read}; an empty stream passes only with --allow-empty"


def _join(counter: Counter[str]) -> str:
    return ", ".join(f"{key} {count}" for key, count in sorted(counter.items()))
