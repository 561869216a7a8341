"""Shared pieces for table sink tests: a test table and an event sink that acks on demand."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from tisink.eventsink.base import CallbackableEvent
from tisink.eventsink.errors import SinkDeadError
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table


class HeldEventSink:
    """An event sink that keeps every event and fires callbacks only when the test says so."""

    def __init__(self, *, wants_txn: bool = False, scheme: str = "kafka") -> None:
        self.wants_txn = wants_txn
        self.scheme = scheme
        self.events: list[CallbackableEvent[Any]] = []
        self.acked: list[bool] = []
        self.write_calls: list[int] = []
        self.dead: BaseException | None = None

    def write_events(self, events: Sequence[CallbackableEvent[Any]]) -> None:
        if self.dead is not None:
            raise SinkDeadError(f"{self.scheme} sink is dead") from self.dead
        self.write_calls.append(len(events))
        self.events.extend(events)
        self.acked.extend(False for _ in events)

    @property
    def error(self) -> BaseException | None:
        return self.dead

    async def close(self) -> None:
        return None

    def ack(self, index: int) -> None:
        assert not self.acked[index], f"event {index} acked twice by the test"
        self.acked[index] = True
        self.events[index].callback()

    def ack_all(self) -> None:
        for index, done in enumerate(self.acked):
            if not done:
                self.ack(index)

    def unacked(self) -> list[int]:
        return [i for i, done in enumerate(self.acked) if not done]


@pytest.fixture(scope="session")
def held_sink() -> Callable[..., HeldEventSink]:
    return HeldEventSink


def _user_table() -> TableInfo:
    """PK ``id``, NOT NULL unique ``email``, nullable unique ``nick``, plain ``name``."""
    return make_table(
        "app",
        "user",
        148,
        400,
        [
            ColumnInfo("id", "bigint", nullable=False),
            ColumnInfo("email", "varchar", nullable=False),
            ColumnInfo("nick", "varchar"),
            ColumnInfo("name", "varchar"),
        ],
        [
            IndexInfo("primary", ("id",), unique=True, primary=True),
            IndexInfo("uk_email", ("email",), unique=True),
            IndexInfo("uk_nick", ("nick",), unique=True),
        ],
    )


USER_TABLE = _user_table()


@pytest.fixture(scope="session")
def user_table() -> TableInfo:
    return USER_TABLE


def _image(id_: int, *, email: str | None = None, nick: str | None = None, name: str = "n"):
    return {"id": id_, "email": email or f"u{id_}@x", "nick": nick, "name": name}


@pytest.fixture(scope="session")
def image() -> Callable[..., dict[str, Any]]:
    return _image


def _row(
    commit_ts: int,
    start_ts: int | None = None,
    *,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    table: TableInfo = USER_TABLE,
    **kwargs: Any,
) -> RowChangedEvent:
    if before is None and after is None:
        after = _image(commit_ts)
    start = commit_ts - 1 if start_ts is None else start_ts
    return RowChangedEvent(start, commit_ts, table, before, after, **kwargs)


@pytest.fixture(scope="session")
def row() -> Callable[..., RowChangedEvent]:
    """Build a row; an INSERT of a fresh image unless ``before``/``after`` are given."""
    return _row
