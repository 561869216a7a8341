"""A play's input on the driver: a feed folder or a workload, and its first stage.

Both give the driver what it plans with (every DDL in feed order with its ordering key, the
``resolved`` records, the first row, the commit-ts range) and build the first stage for a
broadcast plan: a workload's RDD of ``((owner, commitTs, seq), value)`` items, a feed's
DataFrame of the Arrow exchange (``exchange.py``).
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from tisink.core.allocator import release_free_memory
from tisink.core.errors import TisinkError
from tisink.feed.errors import FeedError
from tisink.feed.format.reader import FeedParser, feed_files
from tisink.feed.format.records import FeedDDL, Source
from tisink.feed.player import DEFAULT_WATERMARK_INTERVAL_MS
from tisink.feed.spark.driver.survey import SURVEY_SCHEMA, FeedSurvey, survey_batches
from tisink.feed.spark.errors import SparkPlayError
from tisink.feed.spark.exchange import EXCHANGE_SCHEMA
from tisink.feed.spark.feed_lines import feed_splits, split_tasks
from tisink.feed.spark.plan import FIRST_PLACE, START_SUB, Key, owner_tasks, record_seq
from tisink.feed.spark.reports import ChunkReport, InputProblem, first_problem
from tisink.feed.spark.shared_file import read_shared, write_shared
from tisink.feed.spark.tasks.batch_scheduling import schedule_as_batch
from tisink.feed.spark.tasks.feed_stage import FeedStage, feed_stage_batches, resolved_before
from tisink.feed.spark.tasks.owned_workload import play_owned_partitions
from tisink.feed.spark.tasks.task_timing import profile_folder, timed
from tisink.feed.stats import PlayStats
from tisink.feed.watermarks import interval_of
from tisink.feed.workload import Scenario
from tisink.feed.workload.generator import plan_windows, record_schedule
from tisink.feed.workload.schedule import PlannedDDL
from tisink.model.events import DDLEvent
from tisink.model.tso import LOGICAL_BITS


class PlayInput(Protocol):
    ddls: list[DDLEvent]
    ddl_keys: list[Key]
    resolved: list[int]
    first_row: Key | None
    first_ts: int
    last_ts: int
    intervals: tuple[int, ...]
    """The watermark intervals (indices) holding records: the watermark policy's grid."""

    def check(self, plan: Any) -> None:
        """Raise SparkPlayError with the input's first problem if the driver already knows
        there is one."""
        ...

    def error_for(self, problem: InputProblem) -> TisinkError: ...

    def close(self) -> None:
        """Remove what the input wrote for its job (the job has ended)."""
        ...


class FeedInput:
    """A local feed file or folder, its files listed as the inline engine reads them and cut
    into splits that the tasks read themselves (``feed_lines.py``). Reading it surveys it and
    checks its DDLs in feed order; ``check`` raises the feed's first problem if a DDL was
    bad. Spark hands each task only its splits' indexes: no line passes through the JVM."""

    def __init__(
        self, spark: Any, path: str, interval_ms: int = DEFAULT_WATERMARK_INTERVAL_MS
    ) -> None:
        files = feed_files(path)
        self.paths = tuple(os.path.abspath(file) for file in files)
        """The feed's files by rank, as the owners read their lines back."""
        cores = spark.sparkContext.defaultParallelism
        self._splits = tuple(feed_splits(files, cores))
        if not self._splits:
            raise FeedError("the feed holds no lines")
        tasks = split_tasks(self._splits, cores)  # consecutive splits in each Spark partition
        self._frame = spark.range(0, len(self._splits), 1, tasks)
        splits = self._splits
        survey = self._frame.mapInArrow(
            lambda batches: survey_batches(batches, splits, interval_ms), SURVEY_SCHEMA
        )
        found = [item for row in survey.collect() for item in pickle.loads(row.items)]
        self.survey = FeedSurvey.collect(found, [file.name for file in files])
        self.ddls: list[DDLEvent] = []
        self.ddl_keys: list[Key] = []
        self._ddl_lines: list[tuple[int, str]] = []
        self._ddl_problem: InputProblem | None = None
        parser = FeedParser()
        for place, text in self.survey.ddl_lines:
            try:
                record = parser.parse_line(text.encode(), Source(*self.survey.line_of(place)))
            except FeedError as err:
                self._ddl_problem = InputProblem(place, err.reason, err.table, err.column)
                break
            assert type(record) is FeedDDL
            self.ddls.append(record.ddl)
            self.ddl_keys.append((record.commit_ts, record_seq(place)))
            self._ddl_lines.append((place, text))
        self.resolved = [ts for _, ts in self.survey.resolved]
        first = self.survey.first_row
        self.first_row = None if first is None else (first[1], record_seq(first[0], START_SUB))
        self.first_ts = self.survey.first_ts
        self.last_ts = self.survey.last_ts
        self.intervals = self.survey.intervals

    def _stage(self, broadcast: Any, tasks: int, *, validate_only: bool) -> Any:
        stop = self._ddl_problem.place if self._ddl_problem else None
        stage = FeedStage(
            self._splits,
            tuple(self._ddl_lines),
            resolved_before(self._splits, self.survey.resolved),
            tasks,
            stop,
            validate_only,
        )
        profile = profile_folder()

        def stage_one(batches: Any) -> Any:
            schedule_as_batch()
            out = feed_stage_batches(batches, broadcast.value, stage)
            return out if profile is None else timed("stage one", profile, out)

        return self._frame.mapInArrow(stage_one, EXCHANGE_SCHEMA)

    def stage_one(self, spark: Any, plan: Any, tasks: int) -> Any:
        """The exchange's DataFrame (``exchange.py``): every row's line routed to its owner,
        each split's report to each of the ``tasks`` owner tasks."""
        return self._stage(plan, tasks, validate_only=False)

    def check(self, plan: Any) -> None:
        """With a bad DDL, find the feed's first problem (it may be an earlier row) by the
        first stage alone, and raise it: nothing is written."""
        if self._ddl_problem is None:
            return
        exchange = self._stage(plan, 1, validate_only=True)
        rows = exchange.where("owner = 0 and report is not null").select("report").collect()
        reports: list[ChunkReport] = [pickle.loads(row.report) for row in rows]
        reports.append(ChunkReport(self._ddl_problem.place, None, 0, -1, self._ddl_problem))
        problem = first_problem(reports)
        assert problem is not None
        raise SparkPlayError(self.error_for(problem), 0, PlayStats())

    def close(self) -> None:
        return None

    def error_for(self, problem: InputProblem) -> TisinkError:
        file, line = self.survey.line_of(problem.place)
        return FeedError(
            problem.reason, file=file, line=line, table=problem.table, column=problem.column
        )


class WorkloadInput:
    """A seeded workload: the driver walks its schedule once (DDLs, commit ts), and its
    tasks generate it in the partition owners (``owned_job``)."""

    def __init__(
        self,
        scenario: Scenario,
        seed: int,
        rows: int | None,
        interval_ms: int = DEFAULT_WATERMARK_INTERVAL_MS,
    ) -> None:
        self.scenario, self.seed, self.rows = scenario, seed, rows
        self._folder: Path | None = None
        """Where ``owned_job`` wrote the schedule for the tasks (``close`` removes it)."""
        self.ddls: list[DDLEvent] = []
        self.ddl_keys: list[Key] = []
        self.resolved: list[int] = []
        self.first_row: Key | None = None
        self.first_ts = self.last_ts = 0
        self.schedule = schedule = record_schedule(scenario, seed, rows)
        """Walked once here, its tables planned once (``plan_windows``), and handed to the
        tasks (``owned_job``) instead of each walking and planning it again."""
        plan_windows(scenario, seed, schedule)
        release_free_memory()  # the planning's temporaries, which the tasks' play would keep
        others: list[tuple[int, int]] = []  # (before which transaction, ts)
        for before, step in schedule.others:
            if type(step) is PlannedDDL:
                ts = step.event.commit_ts
                self.ddls.append(step.event)
                self.ddl_keys.append((ts, record_seq(0)))
            else:
                ts = step.commit_ts  # type: ignore[union-attr]
                if self.first_row is None and before == 0:
                    self.first_row = (ts, record_seq(FIRST_PLACE, START_SUB))
            others.append((before, ts))
        commits = schedule.commits
        if self.first_row is None and len(commits):
            self.first_row = (int(commits[0]), record_seq(FIRST_PLACE, START_SUB))
        ahead = [ts for before, ts in others if before == 0]
        behind = [ts for before, ts in others if before == len(commits)]
        firsts = [*ahead, *commits[:1].tolist(), *(ts for _, ts in others)]
        self.first_ts = firsts[0] if firsts else 0
        lasts = [*(ts for _, ts in others), *commits[-1:].tolist(), *behind]
        self.last_ts = lasts[-1] if lasts else 0
        grid = {interval_of(ts, interval_ms) for _, ts in others}
        physical = (commits >> LOGICAL_BITS) // interval_ms
        self.intervals = tuple(sorted(grid.union(np.unique(physical).tolist())))

    def check(self, plan: Any) -> None:
        return None

    def error_for(self, problem: InputProblem) -> TisinkError:
        return TisinkError(problem.reason)

    def owned_tasks(self, owners: int, cores: int) -> int:
        """How many tasks generate the workload in the partition owners for ``owners`` owner
        partitions on ``cores``, each building only its owners' rows (``owner_tasks``)."""
        return owner_tasks(owners, cores)

    def owned_job(self, spark: Any, plan: Any, tasks: int) -> Any:
        """The one stage of ``tasks`` tasks, each generating the workload and playing the
        owners it owns: an RDD of their ``TaskResult``s. The schedule reaches them as a file
        each machine maps once (``shared_file.py``), not as a copy in every task."""
        scenario, seed, rows = self.scenario, self.seed, self.rows
        context = spark.sparkContext
        self._folder = Path(tempfile.mkdtemp(prefix="tisink-schedule-"))
        path = self._folder / f"schedule-{uuid.uuid4().hex}.bin"
        write_shared(self.schedule, path)
        context.addFile(str(path))
        name = path.name

        def generate_and_play(task: int, _: Any) -> Any:
            from pyspark import SparkFiles

            schedule_as_batch()
            schedule = read_shared(SparkFiles.get(name))
            yield from play_owned_partitions(
                task, tasks, plan.value, scenario, seed, rows, schedule
            )

        return context.parallelize(range(tasks), tasks).mapPartitionsWithIndex(generate_and_play)

    def close(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
