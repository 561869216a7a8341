"""Fakes for the MQ DML sink's collaborators: a gated producer and a scripted bootstrap cadence."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from tests.records import as_message
from tisink.codec.message import Message, Record
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table


class FakeProducer:
    """Records every batch per (topic, partition). A gated partition holds its sends until
    ``release``; a failing partition raises on its next send."""

    def __init__(self, partitions: int = 3, read: Callable[[Record], Message] = as_message) -> None:
        self.partitions = partitions
        self.read = read
        self.batches: dict[tuple[str, int], list[list[Message]]] = {}
        self.gated: set[tuple[str, int]] = set()
        self.failing: dict[tuple[str, int], Exception] = {}
        self._gates: dict[tuple[str, int], asyncio.Event] = {}
        self.closed = False
        self.on_send = None

    def gate(self, topic: str, partition: int) -> None:
        self.gated.add((topic, partition))
        self._gates[(topic, partition)] = asyncio.Event()

    def release(self, topic: str, partition: int) -> None:
        self.gated.discard((topic, partition))
        self._gates.pop((topic, partition)).set()

    async def partition_count(self, topic: str) -> int:
        return self.partitions

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        key = (topic, partition)
        messages = [self.read(record) for record in records]
        if self.on_send is not None:
            self.on_send(topic, partition, messages)
        gate = self._gates.get(key)
        if gate is not None:
            await gate.wait()
        if key in self.failing:
            raise self.failing[key]
        self.batches.setdefault(key, []).append(list(messages))

    def messages(self, topic: str, partition: int) -> list[Message]:
        return [m for batch in self.batches.get((topic, partition), []) for m in batch]

    async def close(self) -> None:
        self.closed = True


@dataclass(frozen=True)
class Send:
    """Stand-in for codec.bootstrap.BootstrapSend (same fields)."""

    table: TableInfo
    topic: str
    partitions: tuple[int, ...]


class ScriptedCadence:
    """Bootstraps a table on its first row (all partitions), and on tick when ``due`` names it."""

    enabled = True
    Send = Send

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.due: list[Send] = []
        self.ticks = 0
        self.calls: list[tuple[str, str, int]] = []

    def add_event(
        self, table: TableInfo, topic: str, total_partitions: int, rows: int = 1
    ) -> Send | None:
        self.calls.extend([(table.qualified_name, topic, total_partitions)] * rows)
        if table.table_id in self.seen:
            return None
        self.seen.add(table.table_id)
        return Send(table, topic, tuple(range(total_partitions)))

    def tick(self) -> list[Send]:
        self.ticks += 1
        due, self.due = self.due, []
        return due


def table(name: str = "t", table_id: int = 1, schema: str = "test") -> TableInfo:
    return make_table(
        schema,
        name,
        table_id,
        100,
        [ColumnInfo("id", "int", nullable=False), ColumnInfo("v", "varchar", "utf8mb4")],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )


@pytest.fixture(scope="session")
def fake_producer() -> type[FakeProducer]:
    return FakeProducer


@pytest.fixture(scope="session")
def scripted_cadence() -> type[ScriptedCadence]:
    return ScriptedCadence


@pytest.fixture(scope="session")
def make_mq_table():
    return table
