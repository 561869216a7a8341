"""A workload play in one stage: every task builds the rows of the owners it plays.

Owner ``o`` belongs to task ``o % tasks``. Every task walks the driver's recorded schedule with
the inline engine's generator, so the records it builds are the inline engine's, in the same
order. A row's values are its own (a stream of (seed, table, row number)), and a selectable
table's rows are planned in bulk (``feed/workload/window.py``), so a task works out which keys
its owners get, and builds only those rows (``selection``: a dispatcher that hashes the keys,
or nothing). With every table selectable the task walks only the transactions touching its
rows (``sparse``), and the BOOTSTRAP cadence is planned from the schedule
(``workload_cadence``); otherwise the rows it steps over come as ``SkippedRow`` markers,
counted for the cadence as they stream (``StreamedBootstraps``), and tables whose rows can
change owner are built whole. The transactions whose UPDATE was split are the router's own set,
filled before the rows reach the player.

The task plays all its partitions as one stream through one pair of sinks that write only
them (``owner.play_owner``, ``sink.partition_owner``): a player and sinks per partition cost
a fifth more a row. It runs on one event loop in the task's thread, and pulls the routing a
chunk at a time whenever its ``OwnerFeed`` runs dry: the first row is sent as soon as the
session is up, memory holds about one chunk, and no thread waits on another's GIL.

Generated rows are valid by construction; an error while generating or routing (a dispatcher
that does not fit a table) stops the task's player and becomes its result's ``problem`` (rows
it wrote before stay written, as they do on the inline engine).
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Sequence, Set
from typing import Any, Protocol

import numpy as np

from tisink.codec.bootstrap import BootstrapSend
from tisink.core.collector import rare_collections
from tisink.core.errors import TisinkError
from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.play_records import BootstrapAt
from tisink.feed.spark.bootstraps import table_topics
from tisink.feed.spark.plan import FIRST_PLACE, INSERT_TAIL, Key, PlayPlan
from tisink.feed.spark.reports import InputProblem
from tisink.feed.spark.stop_marker import shield_from_terminal, until_marked
from tisink.feed.spark.task_result import TaskFailure, TaskResult
from tisink.feed.spark.tasks.owner import OwnerProgress, owner_stream, play_owner
from tisink.feed.spark.tasks.owner_feed import OwnerFeed, RoutingPump, Steps
from tisink.feed.spark.tasks.routing import RowRouter
from tisink.feed.spark.tasks.streamed_bootstraps import StreamedBootstraps
from tisink.feed.spark.tasks.workload_cadence import owner_sends
from tisink.feed.workload import (
    KeepRow,
    Scenario,
    SkippedRow,
    generate_records,
    generate_selected_records,
)
from tisink.feed.workload.recorded import RecordedSchedule
from tisink.feed.workload.selection import BulkKeep, selectable
from tisink.model.table import TableInfo

FLUSH_EVERY_RECORDS = 4096
"""Records routed in one step: the player then gets what they gave its partitions."""


def play_owned_partitions(
    task: int,
    tasks: int,
    plan: PlayPlan,
    scenario: Scenario,
    seed: int,
    rows: int | None,
    schedule: RecordedSchedule | None = None,
) -> list[TaskResult]:
    """Generate and route the workload, play the owners of ``task``; their results. The
    cyclic collector is held back meanwhile, as in the inline play (``rare_collections``)."""
    shield_from_terminal(plan.stop_marker)
    with rare_collections():
        return _generate_and_play(task, tasks, plan, scenario, seed, rows, schedule)


def _generate_and_play(
    task: int,
    tasks: int,
    plan: PlayPlan,
    scenario: Scenario,
    seed: int,
    rows: int | None,
    schedule: RecordedSchedule | None,
) -> list[TaskResult]:
    owners = plan.owners_of_task(task, tasks)
    pump = RoutingPump()
    feed = OwnerFeed(pump)
    partitions = tuple(plan.partitions_of(owners)) if plan.owners else ()
    result = TaskResult(owners[0], partitions)
    router = RowRouter(plan)
    planned = schedule is not None and _all_selectable(scenario)
    sparse = planned and len(owners) < plan.tasks
    sends = owner_sends(plan, schedule, owners) if planned and schedule is not None else []
    pump.start(
        route_steps(plan, scenario, seed, rows, router, owners, feed, schedule, sparse, planned)
    )
    asyncio.run(_play(plan, owners, result, feed, router.split_txns, sends))
    if pump.error is not None:
        raise pump.error
    if pump.problem is not None:
        result.problem, result.failure = pump.problem, None
    return [result]


def route_steps(
    plan: PlayPlan,
    scenario: Scenario,
    seed: int,
    rows: int | None,
    router: RowRouter,
    owners: Sequence[int],
    feed: Feed,
    schedule: RecordedSchedule | None = None,
    sparse: bool = False,
    planned: bool = False,
) -> Steps:
    """Generate every record, route every row and hand the items of ``owners`` to ``feed``,
    with the BOOTSTRAPs due before them unless they were ``planned`` from the schedule
    (``sparse``: only the transactions touching the owners' rows); a step every
    ``FLUSH_EVERY_RECORDS`` records, once the feed got what was routed; the first problem, if
    any."""
    refs = {key[0]: index for index, key in enumerate(plan.ddl_keys)}
    cadence = None if planned else _cadence(plan)
    view = plan.view_partitions(owners) if plan.owners else {}
    owned = set(owners)
    first = owners[0] if owners else -1
    pending: list[Any] = []
    tail: list[Any] = []  # pingcap/ticdc's split: the transaction's INSERT halves, last
    txn_ts, place, since_flush = 0, FIRST_PLACE, 0
    route = router.route
    if len(owners) < len(plan.owners):  # another task plays some partitions
        select = _OwnedRows(router, owned)
        records = generate_selected_records(scenario, seed, rows, select, schedule, sparse)
    else:
        records = generate_records(scenario, seed, rows, schedule)
    try:
        for record in records:
            kind = type(record)
            if kind is SkippedRow:
                skipped: SkippedRow = record  # type: ignore[assignment]
                if skipped.commit_ts != txn_ts:
                    if tail:
                        pending += tail
                        tail = []
                    txn_ts, place = skipped.commit_ts, FIRST_PLACE
                if cadence is not None:
                    router.count_skipped(skipped.table, txn_ts, place, cadence, skipped.rows)
                    if cadence.due:
                        _bootstraps(cadence, view, first, pending)
                place += skipped.rows
            elif kind is FeedRow:
                row = record.row  # type: ignore[union-attr]
                if row.commit_ts != txn_ts:
                    if tail:
                        pending += tail
                        tail = []
                    txn_ts, place = row.commit_ts, FIRST_PLACE
                items = route(row, place, cadence, record)  # type: ignore[arg-type]
                place += 1
                if cadence is not None and cadence.due:
                    _bootstraps(cadence, view, first, pending)
                for item in items:
                    if item[0][0] in owned:
                        (tail if item[0][2] >= INSERT_TAIL else pending).append(item)
            elif kind is FeedDDL and record.ddl.table is not None:  # type: ignore[union-attr]
                router.learn(record.ddl.table, refs[record.commit_ts])  # type: ignore[union-attr]
            since_flush += 1
            if since_flush >= FLUSH_EVERY_RECORDS and not tail:
                since_flush = 0
                if pending:
                    feed.put(pending)
                    pending = []
                if feed.closed:
                    return None  # the player stopped (the stop marker, an error)
                yield
    except TisinkError as err:
        return InputProblem(txn_ts, f"workload {scenario.name}: {err}")
    pending += tail
    if cadence is not None:
        cadence.finish()
        _bootstraps(cadence, view, first, pending)
    if pending:
        feed.put(pending)
    return None


def _all_selectable(scenario: Scenario) -> bool:
    """Whether every table is ``selectable``: then each row is one message, so the BOOTSTRAP
    cadence follows from the schedule (``workload_cadence``), and a task that does not own
    every partition walks only the transactions of its rows (``sparse``)."""
    return all(selectable(scenario, i) for i in range(len(scenario.tables)))


class _OwnedRows:
    """The rows of a task's owners (a ``RowSelection``), tested by the router."""

    def __init__(self, router: RowRouter, owned: set[int]) -> None:
        self._router = router
        self._owned = owned

    def keeper(self, table: TableInfo, keys: tuple[str, ...]) -> KeepRow | None:
        return self._router.keeper(table, keys, self._owned)

    def kept_integers(self, table: TableInfo, column: str, values: np.ndarray) -> BulkKeep | None:
        return self._router.kept_integers(table, column, values, self._owned)


def _cadence(plan: PlayPlan) -> StreamedBootstraps | None:
    topics = table_topics(plan)
    if plan.bootstrap is None or topics is None:
        return None
    tables = [ddl.table for ddl in plan.ddls]
    counts = plan.partition_counts
    return StreamedBootstraps(
        plan.bootstrap, tables, topics, counts, plan.intervals, plan.interval_ms, plan.last_ts
    )


def _bootstraps(
    cadence: StreamedBootstraps,
    view: dict[tuple[str, int], int],
    first_owner: int,
    pending: list[Any],
) -> None:
    """The sends due now, to the partitions this task plays, as its sinks number them."""
    for planned in cadence.take():
        send, key = planned.send, planned.key
        mine = tuple(view[send.topic, n] for n in send.partitions if (send.topic, n) in view)
        if mine:
            at = BootstrapAt(key[0], planned.table_id, BootstrapSend(send.table, send.topic, mine))
            pending.append(((first_owner, *key), at))


class Feed(Protocol):
    """Where the routing hands the task's items (``owner_feed.OwnerFeed``, or a bench's)."""

    closed: bool

    def put(self, batch: list[Any]) -> None: ...


async def _play(
    plan: PlayPlan,
    owners: Sequence[int],
    result: TaskResult,
    feed: OwnerFeed,
    split_txns: Set[tuple[int, int]],
    bootstraps: list[tuple[Key, BootstrapAt]],
) -> None:
    """The task's play: its feed merged with the plan's events for its owners, played as a
    stage-two owner plays, through one pair of sinks; the feed closed once it takes no
    more."""
    try:
        progress = OwnerProgress()
        tables = tuple(ddl.table for ddl in plan.ddls)
        events = plan.owner_events(owners, bootstraps)
        records = owner_stream(feed.items(), events, tables, progress)
        if plan.stop_marker is not None:
            records = until_marked(records, plan.stop_marker)
        await play_owner(
            result, plan, owners, records, progress, split_txns, splits_later=plan.split_updates
        )
    except BaseException as err:  # play_owner reports its errors; anything else, here
        result.failure = TaskFailure.of(err, "".join(traceback.format_exception(err)))
    finally:
        feed.close()
