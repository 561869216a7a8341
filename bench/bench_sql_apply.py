"""The SQL applier (``eventsink/sql``) against a raw ``executemany`` of the same rows, on SQLite,
MariaDB and PostgreSQL, in one run (issue 25: >= 20k rows/s through the sink on each).

The rows are the demo workload's tables without its DDLs (every measurement applies the same
row changes to the same tables), generated before timing. Per database, each measurement starts
from empty tables, created before the clock starts:

* raw: the statements the sink runs (upsert / delete by key), their parameters converted in
  advance, one driver ``executemany`` per run of a statement and one transaction per
  ``--batch-rows`` rows of a table: the driver's plain path (SQLite's C loop, PyMySQL's
  multi-row INSERT rewrite, psycopg's pipeline);
* sink: the same rows as single-table transactions handed to ``SQLSink.write_events`` and
  flushed: value conversion, batching, statements, the database threads (``--worker-count``
  connections on the servers, as the sink URI's default), callbacks.

Afterwards both databases must hold the same rows. MariaDB and PostgreSQL are started as the
tests start them (``tests/db_servers.py``) unless ``--mysql-url`` / ``--postgresql-url`` name
servers (whose databases the run drops and creates: use throwaway servers).

    python bench/bench_sql_apply.py [--rows 50000] [--repeat 3] [--only sqlite,mysql]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.db_servers import new_postgresql_database, start_mariadb, start_postgresql, wipe_mariadb
from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.eventsink.sql import Dialect, SQLiteDialect, SQLSink
from tisink.eventsink.sql.mysql import MySQLDialect
from tisink.eventsink.sql.postgresql import PostgreSQLDialect
from tisink.eventsink.sql.rows import WRITE, RowStatements
from tisink.eventsink.sql.schema import ensure_table
from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.workload import generate_records, load_scenario
from tisink.model.events import SingleTableTxn
from tisink.model.table import TableInfo
from tisink.sink.uri import parse_sink_uri

TARGET = 20_000
NewDialect = Callable[[], Dialect]


def demo_txns(rows: int, seed: int) -> tuple[list[TableInfo], list[SingleTableTxn]]:
    scenario = dataclasses.replace(load_scenario("demo"), ddls=())
    tables: list[TableInfo] = []
    txns: list[SingleTableTxn] = []
    for record in generate_records(scenario, seed, rows):
        if type(record) is FeedDDL and record.ddl.table is not None:
            tables.append(record.ddl.table)
        elif type(record) is FeedRow:
            row = record.row
            last = txns[-1] if txns else None
            if last is not None and last.start_ts == row.start_ts and last.table is row.table:
                last.rows.append(row)
            else:
                txns.append(SingleTableTxn(row.start_ts, row.commit_ts, row.table, [row]))
    return tables, txns


def prepared(new: NewDialect, tables: list[TableInfo]) -> Dialect:
    """A connected dialect on a fresh database holding empty ``tables``."""
    dialect = new()
    dialect.connect()
    with dialect.transaction() as cur:
        for table in tables:
            ensure_table(dialect, cur, table)
    return dialect


def run_raw(
    new: NewDialect, tables: list[TableInfo], txns: list[SingleTableTxn], batch: int
) -> float:
    """Seconds to execute the precomputed statements with the driver's ``executemany``."""
    dialect = prepared(new, tables)
    by_table: dict[int, list[Any]] = {}
    for txn in txns:
        by_table.setdefault(txn.table.table_id, []).extend(txn.rows)
    work = []
    for rows in by_table.values():
        statements = RowStatements(dialect, rows[0].table)
        for start in range(0, len(rows), batch):
            runs = statements.runs(rows[start : start + batch])
            work.append([(statements.write if kind == WRITE else statements.delete, params)
                         for kind, params in runs])  # fmt: skip
    started = time.perf_counter()
    for runs in work:
        with dialect.transaction() as cur:
            for sql, params in runs:
                cur.executemany(sql, params)
    elapsed = time.perf_counter() - started
    dialect.close()
    return elapsed


async def run_sink(
    new: NewDialect, tables: list[TableInfo], txns: list[SingleTableTxn], batch: int, workers: int
) -> float:
    prepared(new, tables).close()
    sink = SQLSink(new(), max_batch_rows=batch, connections=workers)
    await sink.open()
    acked = [0]

    def ack() -> None:
        acked[0] += 1

    events = [CallbackableEvent(txn, ack, StateRef()) for txn in txns]
    started = time.perf_counter()
    sink.write_events(events)
    await sink.flush()
    elapsed = time.perf_counter() - started
    await sink.close()
    if acked[0] != len(txns):
        raise SystemExit(f"sink acknowledged {acked[0]} of {len(txns)} transactions")
    return elapsed


def contents(new: NewDialect, tables: list[TableInfo]) -> dict[str, list[str]]:
    dialect = new()
    dialect.connect()
    out: dict[str, list[str]] = {}
    with dialect.transaction() as cur:
        for table in tables:
            cur.execute(f"SELECT * FROM {dialect.ref(table)}")
            out[table.qualified_name] = sorted(map(repr, cur.fetchall()))
    dialect.close()
    return out


@contextlib.contextmanager
def databases(
    names: list[str], args: argparse.Namespace
) -> Iterator[dict[str, Callable[[], NewDialect]]]:
    """Name -> a function giving a fresh database (as a dialect factory) on each call."""
    with tempfile.TemporaryDirectory() as scratch, contextlib.ExitStack() as stack:
        files = iter(range(1_000_000))

        def sqlite() -> NewDialect:
            path = Path(scratch) / f"bench-{next(files)}.db"
            return lambda: SQLiteDialect(path)

        found: dict[str, Callable[[], NewDialect]] = {"sqlite": sqlite}
        if "mysql" in names:
            mysql_url = args.mysql_url or stack.enter_context(start_mariadb())
            server = _server(mysql_url)

            def mysql() -> NewDialect:
                wipe_mariadb(mysql_url)
                return lambda: MySQLDialect(*server)

            found["mysql"] = mysql
        if "postgresql" in names:
            pg_url = args.postgresql_url or stack.enter_context(start_postgresql())

            def postgresql() -> NewDialect:
                url = new_postgresql_database(pg_url)
                host, port, user, password = _server(url)
                return lambda: PostgreSQLDialect(host, port, user, password, url.rsplit("/", 1)[1])

            found["postgresql"] = postgresql
        yield found


def _server(url: str) -> tuple[str, int, str, str]:
    from urllib.parse import urlsplit

    parts = urlsplit(parse_sink_uri(url).raw)
    return parts.hostname or "", parts.port or 0, parts.username or "", parts.password or ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch-rows", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs of each")
    parser.add_argument("--only", default="sqlite,mysql,postgresql")
    parser.add_argument("--worker-count", type=int, default=2, help="sink connections (servers)")
    parser.add_argument("--mysql-url", help="mysql://user:password@host:port/ (default: start one)")
    parser.add_argument("--postgresql-url", help="postgresql://user:password@host:port/db")
    args = parser.parse_args()
    names = args.only.split(",")
    tables, txns = demo_txns(args.rows, args.seed)
    rows = sum(len(t.rows) for t in txns)
    print(f"demo rows: {rows:,} in {len(txns):,} transactions over {len(tables)} tables, "
          f"batch-rows {args.batch_rows}, best of {args.repeat}")  # fmt: skip
    print(f"{'database':<12}{'raw executemany':>18}{'SQLSink':>14}{'sink/raw':>10}  target")
    met = True
    with databases(names, args) as fresh:
        for name in names:
            raw = sink = float("inf")
            for _ in range(args.repeat):
                new_raw, new_sink = fresh[name](), fresh[name]()
                raw = min(raw, run_raw(new_raw, tables, txns, args.batch_rows))
                workers = 1 if name == "sqlite" else args.worker_count
                elapsed = asyncio.run(run_sink(new_sink, tables, txns, args.batch_rows, workers))
                sink = min(sink, elapsed)
                if contents(new_raw, tables) != contents(new_sink, tables):
                    raise SystemExit(f"{name}: the sink and the raw run left different rows")
            ok = rows / sink >= TARGET
            met = met and ok
            print(f"{name:<12}{rows / raw:>14,.0f} r/s{rows / sink:>10,.0f} r/s{raw / sink:>10.2f}"
                  f"  {'met' if ok else 'NOT met'}")  # fmt: skip
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
