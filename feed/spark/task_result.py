"""What a Spark owner task sends back to the driver, and what the driver makes of them all.

Typed, so the driver, the command line and the tests read fields, not dict keys; both are
plain picklable dataclasses (Spark sends a task's result through pickle).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tisink.core.errors import TisinkError
from tisink.eventsink.faults import InjectedFault
from tisink.eventsink.stats import AckedSeconds, AcknowledgedEnds, SinkStats
from tisink.feed.errors import FeedError
from tisink.feed.spark.reports import InputProblem
from tisink.tablesink import LatencyReport


@dataclass
class TaskFailure:
    """Why a task stopped: the error as text (exceptions do not always pickle), and a feed
    error's place."""

    error: str
    error_type: str
    traceback: str = ""
    reason: str | None = None
    file: str | None = None
    line: int | None = None
    table: str | None = None
    column: str | None = None

    @classmethod
    def of(cls, err: BaseException, traceback: str) -> TaskFailure:
        failure = cls(str(err), type(err).__name__, traceback)
        if isinstance(err, FeedError):
            failure.reason, failure.file, failure.line = err.reason, err.file, err.line
            failure.table, failure.column = err.table, err.column
        return failure


@dataclass
class TaskResult:
    """One task playing one owner or several: which partitions, how far it got, what its
    sinks delivered."""

    task: int
    """Its first owner (owners are numbered as ``PlayPlan.owners``)."""
    partitions: tuple[tuple[str, int], ...] = ()
    """The (topic, partition)s it wrote; none when the sink has no partitions."""
    problem: InputProblem | None = None
    """The feed's first bad record (the task then wrote nothing)."""
    failure: TaskFailure | None = None
    checkpoint_ts: int = 0
    rows: int = 0
    bytes: int = 0
    ddl: int = 0
    watermarks: int = 0
    tables: int = 0
    first_send: float | None = None
    last_send: float | None = None
    last_ack: float = 0.0
    sink_stats: SinkStats = field(default_factory=SinkStats)
    acknowledged: AcknowledgedEnds = field(default_factory=dict)
    faults: list[InjectedFault] = field(default_factory=list)
    acked_seconds: AckedSeconds = field(default_factory=dict)
    latency: LatencyReport | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and self.failure is None

    def cause(self) -> TisinkError:
        """The error this failed task reported, as an exception on the driver."""
        failure = self.failure
        if failure is None:
            return TisinkError(f"spark task {self.task} did not fail")
        if failure.reason is not None:
            return FeedError(
                failure.reason,
                file=failure.file,
                line=failure.line,
                table=failure.table,
                column=failure.column,
            )
        where = ", ".join(f"topic {t!r} partition {p}" for t, p in self.partitions) or "all"
        return TisinkError(
            f"spark task {self.task} ({where}): {failure.error_type}: {failure.error}"
        )


@dataclass
class SparkRun:
    """A whole Spark play, merged from its tasks, for the command line's summary."""

    rows: int
    ddl: int
    checkpoint_ts: int
    sink_uri: str
    partitions: int
    """Owned (topic, partition)s; 0 for sinks without partitions (one task)."""
    watermarks: int
    feed_bytes: int
    sink_stats: SinkStats
    acknowledged: AcknowledgedEnds
    faults: list[InjectedFault]
    startup_s: float
    rows_per_s: float
    """From the command's start to the last acknowledgement."""
    writing_rows_per_s: float
    """From the first row sent to the last acknowledgement (the writing phase)."""
    sending_s: float
    """From the first row sent to the last acknowledgement."""
    latency: LatencyReport
    acked_seconds: AckedSeconds
    behind_s: float
    elapsed_s: float = 0.0
