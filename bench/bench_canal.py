"""canal-json encode throughput on the demo rows, against Simple JSON in the same run.

The ``demo`` workload's rows (every MySQL type over five tables, wide rows), in their
transactions, encoded with ``encode_rows`` per transaction as the MQ sink calls it: Simple JSON,
canal-json (plain, with the TiDB extension, content-compatible), and the floor, ``orjson.dumps``
of canal-json's finished messages parsed back. Target (issue 26): canal-json at least as fast as
Simple JSON. CPU time summed over ``--repeat`` rounds in which the cases take turns every
``CHUNK`` transactions (the order reversed every other round), so a slow or fast spell of a
shared machine (a virtual machine's speed here moves by 20 % between seconds) falls on all of
them alike: the ratio repeats to within a percent, where the best of whole runs moved by five.
The rows are frozen out of the garbage collector's sight as ``bench_stages`` does.
``--per-table`` adds canal-json / Simple JSON per table (each transaction's rows of that
table): the tables with binary columns are where canal-json's ISO-8859-1 texts cost. Run:
``python bench/bench_canal.py [--rows N] [--per-table]``.

CPU time on a shared machine moves by several percent between runs; ``--instructions`` counts
instead (valgrind's callgrind, deterministic): each protocol encodes the rows once inside
``functools.reduce`` in a child process under ``valgrind --tool=callgrind --collect-atstart=no
--toggle-collect=functools_reduce``, so only the encoding is counted, and canal-json / Simple
JSON is the ratio of the counts (overall and, with ``--per-table``, per table; a few minutes
a run for the default 20000 rows). Fewer rows change the mix of tables and of INSERT / UPDATE /
DELETE, and so the ratio: compare counts of the same ``--rows`` only.
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tisink.bench.rows import Txn, demo_txns
from tisink.codec.canal.options import CanalOptions
from tisink.codec.config import EncoderConfig
from tisink.codec.registry import get_protocol
from tisink.core.clock import FixedClock

BUILD_MS = 1_714_550_400_000


CHUNK = 50
"""Transactions a case encodes before the next takes its turn."""

Encode = Callable[[list[Txn]], object]


def rates(cases: dict[str, Encode], txns: list[Txn], repeat: int) -> dict[str, float]:
    """Rows per CPU second of each case: ``repeat`` rounds over ``txns``, the cases taking
    turns every ``CHUNK`` transactions."""
    spent = dict.fromkeys(cases, 0.0)
    chunks = [txns[i : i + CHUNK] for i in range(0, len(txns), CHUNK)]
    clock = time.process_time
    for round_ in range(repeat):
        order = list(cases.items())
        if round_ % 2:
            order.reverse()
        for chunk in chunks:
            for name, run in order:
                start = clock()
                run(chunk)
                spent[name] += clock() - start
    rows = sum(map(len, txns)) * repeat
    out = {name: rows / max(seconds, 1e-9) for name, seconds in spent.items()}
    for name, value in out.items():
        print(f"  {name:<44} {value:>10,.0f} rows/s  {1e6 / value:7.2f} us/row")
    return out


def encoder(config: EncoderConfig, txns: list[Txn]) -> Encode:
    encode_rows = (
        get_protocol(config.protocol).new_encoder(config, FixedClock(BUILD_MS)).encode_rows
    )

    def run(chunk: list[Txn]) -> None:
        for txn in chunk:
            encode_rows(txn)

    run(txns)  # renderers compiled before timing, as after a play's first rows
    return run


def per_table(txns: list[Txn], configs: dict[str, EncoderConfig], repeat: int) -> None:
    """canal-json / Simple JSON per table, interleaved as ``rates`` does."""
    tables: dict[str, list[Txn]] = {}
    for txn in txns:
        for name in {row.table.table for row in txn}:
            tables.setdefault(name, []).append([r for r in txn if r.table.table == name])
    for name, part in sorted(tables.items()):
        cases = {key: encoder(configs[key], part) for key in ("simple json", "canal-json")}
        print(f"  {name}, {sum(map(len, part))} rows:")
        got = rates(cases, part, repeat)
        print(f"    canal-json / simple json: {got['canal-json'] / got['simple json']:.3f}")


def encode_once(protocol: str, rows: int, table: str | None) -> None:
    """The child of ``--instructions``: the demo rows (of ``table``) encoded once inside
    ``functools.reduce``, after a first pass that compiles the renderers."""
    txns = demo_txns(rows)
    if table:
        parts = ([row for row in txn if row.table.table == table] for txn in txns)
        txns = [part for part in parts if part]
    config = EncoderConfig(protocol=protocol, time_zone="UTC")
    encode_rows = get_protocol(protocol).new_encoder(config, FixedClock(BUILD_MS)).encode_rows
    for txn in txns:
        encode_rows(txn)
    functools.reduce(lambda _, txn: encode_rows(txn), txns, None)


def instructions(protocol: str, rows: int, table: str | None) -> int:
    """Instructions callgrind counts for ``encode_once`` in a child process."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    command += ["--collect-atstart=no", "--toggle-collect=functools_reduce"]
    command += [sys.executable, __file__, "--encode-once", protocol, "--rows", str(rows)]
    command += ["--table", table] if table else []
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no callgrind count in: {done.stderr[-500:]}")
    return int(found.group(1))


def count_instructions(rows: int, per_table: bool) -> int:
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind")
    tables: list[str | None] = [None]
    if per_table:
        tables += sorted({row.table.table for txn in demo_txns(rows) for row in txn})
    print(f"instructions (callgrind) encoding {rows} demo rows once")
    ratio = 0.0
    for table in tables:
        simple = instructions("simple", rows, table)
        canal = instructions("canal-json", rows, table)
        ratio = ratio or simple / canal
        print(
            f"  {table or 'all tables':<16} simple json {simple:>12,}  canal-json {canal:>12,}"
            f"  canal-json / simple json: {simple / canal:.3f}"
        )
    return 0 if ratio >= 1.0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--per-table", action="store_true")
    parser.add_argument("--instructions", action="store_true", help="callgrind counts")
    parser.add_argument("--encode-once", metavar="PROTOCOL", help=argparse.SUPPRESS)
    parser.add_argument("--table", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.encode_once:
        encode_once(args.encode_once, args.rows, args.table)
        return 0
    if args.instructions:
        return count_instructions(args.rows, args.per_table)
    txns = demo_txns(args.rows)
    rows = sum(map(len, txns))
    print(f"demo rows: {rows} in {len(txns)} transactions, {args.repeat} interleaved rounds")
    cases = {
        "simple json": EncoderConfig(protocol="simple", time_zone="UTC"),
        "canal-json": EncoderConfig(protocol="canal-json", time_zone="UTC"),
        "canal-json enable-tidb-extension": EncoderConfig(
            protocol="canal-json",
            time_zone="UTC",
            options=CanalOptions(enable_tidb_extension=True),
        ),
        "canal-json content-compatible": EncoderConfig(
            protocol="canal-json", time_zone="UTC", options=CanalOptions(content_compatible=True)
        ),
    }
    runs: dict[str, Encode] = {name: encoder(config, txns) for name, config in cases.items()}
    canal = get_protocol("canal-json").new_encoder(cases["canal-json"], FixedClock(BUILD_MS))
    parsed = {
        id(txn): [orjson.loads(record[1] or b"null") for record in canal.encode_rows(txn).records]
        for txn in txns
    }

    def floor(chunk: list[Txn]) -> None:
        dumps = orjson.dumps
        for txn in chunk:
            for body in parsed[id(txn)]:
                dumps(body)

    runs["floor: orjson.dumps(finished canal-json)"] = floor
    gc.collect()
    gc.freeze()  # the fixture outlives the timing (as bench_stages): no full collection over it
    best = rates(runs, txns, args.repeat)
    ratio = best["canal-json"] / best["simple json"]
    print(f"canal-json / simple json: {ratio:.2f} (target >= 1.0)")
    if args.per_table:
        per_table(txns, cases, args.repeat)
    return 0 if ratio >= 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
