"""The EventSink interface and callbackable events (TiCDC ``cdc/sink/dmlsink/event_sink.go``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Generic, Protocol, TypeVar, runtime_checkable

from tisink.model.events import RowChangedEvent, SingleTableTxn

E = TypeVar("E", RowChangedEvent, SingleTableTxn)


class TableSinkState(Enum):
    """State of the table sink an event came from; events of a stopping table may be dropped
    (their callbacks still fire, so the table sink can finish closing)."""

    NORMAL = "normal"
    STOPPING = "stopping"
    STOPPED = "stopped"


class StateRef:
    """A shared, mutable state cell: the table sink flips it, event sinks read it."""

    __slots__ = ("state",)

    def __init__(self, state: TableSinkState = TableSinkState.NORMAL) -> None:
        self.state = state


@dataclass(slots=True)
class CallbackableEvent(Generic[E]):
    """An event plus the callback to fire once the destination has it durably."""

    event: E
    callback: Callable[[], None]
    sink_state: StateRef


@runtime_checkable
class EventSink(Protocol[E]):
    """Where a table sink hands its flushed events. ``write_events`` must not block: it queues
    the events and returns; callbacks fire later, once each event is acknowledged.

    A sink that hit a fatal error keeps it in ``error`` and raises SinkDeadError from
    ``write_events``; no callback fires for events it did not deliver.
    """

    #: the scheme this sink was built for (``blackhole``, ``file``, ``kafka``...)
    scheme: str
    #: True when the sink wants transactions (TxnAppender), False for single rows
    wants_txn: bool

    def write_events(self, events: Sequence[CallbackableEvent[E]]) -> None: ...

    @property
    def error(self) -> BaseException | None: ...

    async def close(self) -> None: ...
