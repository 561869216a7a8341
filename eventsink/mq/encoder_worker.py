"""The process side of ``encoder-concurrency``: route and encode transactions sent as bytes.

One worker runs per encoder process. It owns its own encoder and router, built from the sink's
settings at start, and answers each request in order. A request carries ``buildTs``, read once
by the sink, so every process writes the time the sink's clock gave. Rows travel as plain
tuples, which pickle at C speed, and table schemas once per process: inside requests a table
is a number the worker keeps the TableInfo for, so the encoder's per-table renderers are
built once there too.

Messages (pickled), sink to worker: ``("tables", {token: TableInfo})`` and
``("rows", seq, build_ts, [(row tuples, partitions), ...])``. Worker to sink: ``(seq, result)``,
the ``txn_encoding.encode_txns`` result: one ``EncodedTxn`` per transaction, or a ``FailedTxn``.
"""

from __future__ import annotations

import pickle
import queue
import sys
import threading
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from tisink.codec import new_encoder
from tisink.codec.config import EncoderConfig
from tisink.codec.encoder import use_router_topics
from tisink.core.clock import FixedClock
from tisink.eventsink.mq.txn_encoding import FailedTxn, Result, Txn, encode_txns
from tisink.eventsink.router import EventRouter
from tisink.model.events import RowChangedEvent
from tisink.model.table import TableInfo

_PROTOCOL = pickle.HIGHEST_PROTOCOL


class TableTokens:
    """The sink's side of the table protocol: which TableInfo got which number."""

    def __init__(self) -> None:
        self._tokens: dict[int, tuple[int, TableInfo]] = {}

    def token(self, table: TableInfo, new: dict[int, TableInfo]) -> int:
        """The number of ``table``, added to ``new`` the first time. The table is kept alive
        so its ``id`` is never reused for another one."""
        known = self._tokens.get(id(table))
        if known is not None:
            return known[0]
        number = len(self._tokens)
        self._tokens[id(table)] = (number, table)
        new[number] = table
        return number


def _pack(txns: Sequence[Txn], tokens: TableTokens, new: dict[int, TableInfo]) -> list[Any]:
    """Rows as plain tuples (the C pickler's fast path), tables as their numbers."""
    packed = []
    table: TableInfo | None = None
    token = 0
    for rows, partitions in txns:
        flat = []
        for row in rows:
            if row.table is not table:
                table = row.table
                token = tokens.token(table, new)
            flat.append(
                (
                    token,
                    row.start_ts,
                    row.commit_ts,
                    row.before,
                    row.after,
                    row.split_txn,
                    row.physical_table_id,
                    row.approximate_size,
                    row.checksum,
                )
            )
        packed.append((flat, partitions))
    return packed


def dump_request(
    tokens: TableTokens, seq: int, build_ts: int, txns: Sequence[Txn]
) -> tuple[bytes | None, bytes]:
    """The pickled ``tables`` message (None when every table is known) and ``rows`` message."""
    new: dict[int, TableInfo] = {}
    body = pickle.dumps(("rows", seq, build_ts, _pack(txns, tokens, new)), protocol=_PROTOCOL)
    header = pickle.dumps(("tables", new), protocol=_PROTOCOL) if new else None
    return header, body


class _Worker:
    def __init__(self, config: EncoderConfig, router: EventRouter) -> None:
        self.clock = FixedClock()
        self.encoder = new_encoder(config, self.clock)
        use_router_topics(self.encoder, router.topic_for_table)
        self.router = router
        self.tables: dict[int, TableInfo] = {}

    def unpack(self, flat: list[tuple[Any, ...]]) -> list[RowChangedEvent]:
        tables = self.tables
        return [
            RowChangedEvent(
                start_ts,
                commit_ts,
                tables[token],
                before,
                after,
                split_txn=split_txn,
                physical_table_id=physical_table_id,
                approximate_size=approximate_size,
                checksum=checksum,
            )
            for (
                token,
                start_ts,
                commit_ts,
                before,
                after,
                split_txn,
                physical_table_id,
                approximate_size,
                checksum,
            ) in flat
        ]

    def encode(self, build_ts: int, txns: list[Any]) -> Result:
        self.clock.ms = build_ts
        try:
            unpacked = [(self.unpack(flat), partitions) for flat, partitions in txns]
        except Exception as err:
            return FailedTxn(0, f"{type(err).__name__}: {err}")
        return encode_txns(self.encoder, self.router, unpacked)


def _read_requests(conn: Connection, inbox: queue.SimpleQueue[bytes]) -> None:
    """Keep the pipe drained, so the sink never blocks writing a request."""
    try:
        while True:
            data = conn.recv_bytes()
            inbox.put(data)
            if not data:
                return
    except (EOFError, OSError):
        inbox.put(b"")


def serve(conn: Connection) -> None:
    """The encoder process's loop: the first message is ``(EncoderConfig, EventRouter)``; it
    returns on an empty message or a closed pipe."""
    config, router = pickle.loads(conn.recv_bytes())
    worker = _Worker(config, router)
    conn.send_bytes(b"ready")
    inbox: queue.SimpleQueue[bytes] = queue.SimpleQueue()
    threading.Thread(target=_read_requests, args=(conn, inbox), daemon=True).start()
    while data := inbox.get():
        message = pickle.loads(data)
        if message[0] == "tables":
            worker.tables.update(message[1])
            continue
        _, seq, build_ts, txns = message
        result = worker.encode(build_ts, txns)
        try:
            conn.send_bytes(pickle.dumps((seq, result), protocol=_PROTOCOL))
        except OSError:
            return


def main() -> None:
    """Entry of ``python -c``: the pipe's file descriptor is the only argument."""
    serve(Connection(int(sys.argv[1])))
