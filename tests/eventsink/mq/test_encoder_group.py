"""``encoder-concurrency``: encoder processes give the bytes and partitions of in-process
encoding, in order; their failures and deaths reach the sink with the row or the process named."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import os
import signal
from pathlib import Path

import orjson
import pytest

from tests.eventsink.mq.test_dml_sink import TOPIC, Acks, make_txn, settle
from tisink.codec import new_encoder
from tisink.codec.config import EncoderConfig
from tisink.core.clock import FixedClock
from tisink.eventsink.errors import EventSinkError
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.mq.encoder_group import EncoderGroup, new_txn_encoder, usable_concurrency
from tisink.eventsink.mq.partition_sender import group_by_partition
from tisink.eventsink.mq.txn_encoding import InlineEncoder
from tisink.eventsink.router import DispatchRule, EventRouter
from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.table import TableInfo
from tisink.play.run import PlaySpec, run_play

SIMPLE = EncoderConfig(protocol="simple")
ROUTER = EventRouter(TOPIC, [DispatchRule(("*.*",), partition="index-value")])


def _txns(first: TableInfo, second: TableInfo, count: int) -> list[SingleTableTxn]:
    """Txns alternating two tables, the second changing schema version halfway."""
    altered = dataclasses.replace(second, version=second.version + 1)
    out = []
    for n in range(count):
        table = first if n % 2 else (second if n < count // 2 else altered)
        out.append(make_txn(table, 100 + n, [n * 3, n * 3 + 1, n * 3 + 2]))
    return out


async def test_processes_route_and_encode_as_the_sink_would(make_mq_table) -> None:
    clock = FixedClock(1_700_000_000_000)
    group = EncoderGroup(SIMPLE, ROUTER, 2, clock)
    txns = _txns(make_mq_table("a", 1), make_mq_table("b", 2), 40)
    try:
        await group.start()
        first = [group.submit([(t.rows, 3) for t in txns[i : i + 7]]) for i in range(0, 20, 7)]
        clock.advance(5)
        later = group.submit([(t.rows, 3) for t in txns[21:]])
        results = [r for f in [*first, later] for r in await f]  # type: ignore[union-attr]
    finally:
        await group.close()

    local = new_encoder(SIMPLE, FixedClock(1_700_000_000_000))
    late = new_encoder(SIMPLE, FixedClock(1_700_000_000_005))
    expected = [txns[i] for i in range(21)] + txns[21:]
    assert len(results) == len(expected) == 40
    for n, (txn, encoded) in enumerate(zip(expected, results, strict=True)):
        targets = ROUTER.partitions_for_rows(txn.rows, 3)
        records = (late if n >= 21 else local).encode_rows(txn.rows).records
        assert encoded.groups == group_by_partition(targets, records, 3)
        assert encoded.size == sum(len(value) for _, value in records)


async def test_a_sink_with_processes_sends_what_an_in_process_sink_sends(
    fake_producer, scripted_cadence, make_mq_table
) -> None:
    txns = _txns(make_mq_table("a", 1), make_mq_table("b", 2), 300)
    sent = []
    for processes in (0, 2):
        producer = fake_producer(partitions=3)
        clock = FixedClock(7)
        encoder = new_encoder(SIMPLE, clock)
        sink = MQDMLSink(
            producer,
            encoder,
            ROUTER,
            scripted_cadence(),
            scheme="fake",
            txn_encoder=new_txn_encoder(SIMPLE, encoder, ROUTER, processes, clock),
        )
        await sink.start()
        acks = Acks()
        for start in range(0, len(txns), 50):  # several batches, several requests each
            sink.write_events([acks.event(t) for t in txns[start : start + 50]])
            await sink.wait_for_capacity()
        await sink.close()
        assert sink.error is None
        assert sorted(acks.fired) == [t.commit_ts for t in txns]
        sent.append({p: [m.value for m in producer.messages(TOPIC, p)] for p in range(3)})
    assert sent[0] == sent[1]
    assert sum(map(len, sent[1].values())) == 900 + 2 * 3  # rows and a bootstrap per table


async def test_an_encoding_failure_in_a_process_names_the_row(fake_producer, make_mq_table) -> None:
    clock = FixedClock(7)
    sink = MQDMLSink(
        fake_producer(),
        new_encoder(SIMPLE, clock),
        ROUTER,
        None,
        scheme="fake",
        txn_encoder=EncoderGroup(SIMPLE, ROUTER, 1, clock),
    )
    table = make_mq_table()
    good = make_txn(table, 6, [1])
    bad_row = RowChangedEvent(6, 7, table, after={"id": 2, "v": ["not", "text"]})
    acks = Acks()
    sink.write_events([acks.event(good), acks.event(SingleTableTxn(6, 7, table, [bad_row]))])
    await settle(sink)
    await sink.close()
    message = str(sink.error)
    assert "test.t" in message and "commitTs=7" in message and "'v'" in message
    assert 7 not in acks.fired


async def test_a_dead_process_kills_the_sink_naming_it(fake_producer, make_mq_table) -> None:
    clock = FixedClock(7)
    group = EncoderGroup(SIMPLE, ROUTER, 1, clock)
    sink = MQDMLSink(
        fake_producer(),
        new_encoder(SIMPLE, clock),
        ROUTER,
        None,
        scheme="fake",
        txn_encoder=group,
    )
    await sink.start()
    (pid,) = group.pids
    os.kill(pid, signal.SIGKILL)
    acks = Acks()
    sink.write_events([acks.event(make_txn(make_mq_table(), 9, [1, 2]))])
    for _ in range(100):
        if sink.error is not None:
            break
        await asyncio.sleep(0.05)
    await sink.close()
    assert isinstance(sink.error, EventSinkError)
    assert "encoder process 0" in str(sink.error) and "-9" in str(sink.error)
    assert acks.fired == []


async def test_the_group_refuses_work_before_start_and_after_close() -> None:
    group = EncoderGroup(SIMPLE, ROUTER, 1, FixedClock())
    with pytest.raises(EventSinkError, match="before start"):
        group.submit([])
    await group.start()
    await group.close()
    with pytest.raises(EventSinkError, match="closed"):
        group.submit([])


def test_concurrency_zero_encodes_in_process_and_is_capped_at_the_cpus() -> None:
    inline = new_txn_encoder(SIMPLE, new_encoder(SIMPLE), ROUTER, 0, FixedClock())
    assert isinstance(inline, InlineEncoder)
    assert usable_concurrency(32) == (os.cpu_count() or 1)
    assert usable_concurrency(1) == 1


def _per_table(folder: Path) -> dict[tuple[str, str], list[bytes]]:
    """Each partition's messages split by table (watermarks by themselves): the order the
    protocol fixes. A DDL waits only for its own table's rows (DESIGN.md), so how messages of
    different tables interleave depends on timing."""
    streams: dict[tuple[str, str], list[bytes]] = {}
    for path in sorted(folder.rglob("partition-*.jsonl")):
        for line in path.read_bytes().splitlines():
            value = base64.b64decode(orjson.loads(line)["value"])
            body = orjson.loads(value)
            table = f"{body.get('database', body.get('schema'))}.{body.get('table')}"
            key = "WATERMARK" if body["type"] == "WATERMARK" else table
            streams.setdefault((path.name, key), []).append(value)
    return streams


def test_played_with_processes_the_streams_equal_an_in_process_play(tmp_path: Path) -> None:
    outputs = []
    for params in ("", "&encoder-concurrency=2"):
        out = tmp_path / f"out{len(params)}"
        uri = f"file://{out}?protocol=simple&partition-num=3{params}"
        summary = run_play(
            PlaySpec(
                workload="demo", rows=3000, seed=3, sink_uri=uri, engine="inline", clock="feed"
            )
        )
        assert summary.verified
        outputs.append(_per_table(out))
    assert len(outputs[0]) > 3 and outputs[0] == outputs[1]
