"""What the injector did, as the play summary lists it: one entry per injected fault."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, order=True, slots=True)
class InjectedFault:
    """One fault: the records it added (or held back, for ``skew``) are the partition's
    offsets ``first_offset``..``last_offset``; ``commit_ts`` is the message it fired at."""

    topic: str
    partition: int
    first_offset: int
    last_offset: int
    kind: str
    commit_ts: int = 0
    messages: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def merge_faults(parts: Iterable[Iterable[InjectedFault]]) -> list[InjectedFault]:
    """Faults of several injectors (a Spark play's tasks), by topic, partition and offset."""
    return sorted({fault for part in parts for fault in part})


@runtime_checkable
class ReportsFaults(Protocol):
    """A sink whose producer injects faults: what it injected so far."""

    def injected_faults(self) -> list[InjectedFault]: ...


def injected_faults(sink: object) -> list[InjectedFault]:
    """What ``sink`` injected; empty for sinks without faults."""
    return sink.injected_faults() if isinstance(sink, ReportsFaults) else []
