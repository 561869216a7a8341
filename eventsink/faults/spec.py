"""The fault spec: ``NAME[:key=value,...]`` items joined by ``;``, as ``tisink play --faults``
and the changefeed's ``[sink] faults`` take it.

Every kind fires at *points* of one partition's stream, chosen by its trigger keys:

* ``every=DURATION``: once per DURATION of commit time (``5s``, ``500ms``, ``2m``; a bare
  number is seconds), at the first eligible message of each new slot of that length;
* ``at=TSO``: at the first eligible message at or past that commit ts (repeat the key for more);
* ``p=PROBABILITY``: each eligible message with that probability, drawn from a generator
  seeded by ``seed``, the kind, the topic and the partition, so a seeded play is repeatable;
* ``nth=N``: at the partition's Nth eligible message, then at every Nth after it.

``topic=NAME`` and ``partition=N`` limit a kind to one topic or partition. Without trigger keys
a kind uses its default (``DEFAULTS``: counts of eligible messages, so a short stream gets its
faults too). ``skew`` takes ``by=DURATION`` (default 5s) and ``partition`` (default 0) instead.
A key given twice is refused (only ``at`` repeats), as is an empty ``topic``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from tisink.core.clock import TSO_LOGICAL_BITS
from tisink.eventsink.faults.errors import FaultSpecError

FAULT_KINDS: dict[str, str] = {
    "restart-replay": "before a WATERMARK, the partition is sent again from just after the "
    "previous one (with the BOOTSTRAPs and DDLs a restarted TiCDC sends again)",
    "bab": "after a transaction, the partition's earlier transactions since the last "
    "WATERMARK are sent again, then that transaction itself",
    "duplicate-ddl": "a DDL message is sent twice",
    "duplicate-watermark": "a WATERMARK is sent twice",
    "stale-watermark": "after a WATERMARK, the one before it is sent again (as after a restart)",
    "producer-retry": "a transaction's records are sent again right after it, as a retried "
    "batch whose acknowledgement was lost",
    "skew": "one partition is held back by a span of commit time behind the others "
    "(inline engine; the bytes of the partition do not change)",
    "split-table": "a table's transaction is held by a second node and sent after the table's "
    "next one, so the table's commit ts goes back inside the partition (TiCDC's "
    "table-across-nodes); every row still arrives before the next WATERMARK or DDL",
    "ts-regression": "a transaction's send fails and the newer ones go on; before the next "
    "WATERMARK or DDL the restarted sink sends the partition again from the last WATERMARK, so "
    "the lost rows arrive, for the first time, after newer ones",
    "corrupt-checksum": "one row's checksum is wrong and marked corrupted, as TiCDC writes a "
    "row whose data did not match TiDB's checksum (needs [integrity] integrity-check-level = "
    '"correctness"; protocol simple (JSON) or avro)',
}
"""Kind -> what it does, in the order ``tisink play --help`` lists them."""

DEFAULTS: dict[str, dict[str, str]] = {
    "restart-replay": {"nth": "3"},
    "bab": {"nth": "500"},
    "duplicate-ddl": {"nth": "1"},
    "duplicate-watermark": {"nth": "3"},
    "stale-watermark": {"nth": "2"},
    "producer-retry": {"nth": "50"},
    "skew": {"by": "5s", "partition": "0"},
    "split-table": {"nth": "20"},
    "ts-regression": {"nth": "100"},
    "corrupt-checksum": {"nth": "100"},
}
"""The trigger of a kind given without one (eventsink/faults/README.md has the table)."""

_TRIGGERS = ("every", "at", "p", "nth", "by")
_KEYS = {"every", "at", "p", "nth", "seed", "topic", "partition"}
_REPEATABLE = {"at"}
_SKEW_KEYS = {"by", "topic", "partition"}
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h)?$", re.ASCII)
_MAX_MS = 1 << (64 - TSO_LOGICAL_BITS)
"""Milliseconds a TSO's physical part can hold: no duration or ``at`` reaches past it."""
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, None: 1000}


@dataclass(frozen=True)
class FaultSpec:
    """One item of a spec: a kind and its parsed keys."""

    kind: str
    every_ms: int = 0
    at: tuple[int, ...] = ()
    p: float = 0.0
    nth: int = 0
    seed: int = 1
    topic: str | None = None
    partition: int | None = None
    by_ms: int = 0
    defaulted: bool = False
    """The trigger is the kind's default (the spec named none)."""

    def applies_to(self, topic: str, partition: int) -> bool:
        return (self.topic is None or self.topic == topic) and (
            self.partition is None or self.partition == partition
        )


@dataclass(frozen=True)
class FaultPlan:
    """The parsed spec; ``text`` is what the user wrote (shown in the summary)."""

    text: str
    faults: tuple[FaultSpec, ...] = field(default=())

    def of(self, kind: str) -> FaultSpec | None:
        return next((f for f in self.faults if f.kind == kind), None)

    def __bool__(self) -> bool:
        return bool(self.faults)


def parse_duration_ms(text: str) -> int:
    match = _DURATION.match(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is no duration (5s, 500ms, 2m)")
    millis = float(match.group(1)) * _UNIT_MS[match.group(2)]
    if not millis < _MAX_MS:  # inf too: a TSO's physical part cannot span it
        raise ValueError(f"{text!r} is longer than a TSO can span")
    if int(millis) <= 0:
        raise ValueError(f"{text!r} must be longer than 0")
    return int(millis)


def parse_faults(value: object) -> FaultPlan:
    """Parse a spec (a str; a TOML array of item strings is joined). ValueError (with the item
    and key) for anything unknown or malformed, as option converters raise."""
    if isinstance(value, list | tuple):
        value = ";".join(str(item) for item in value)
    if not isinstance(value, str):
        raise ValueError(f"expected a fault spec string, got {value!r}")
    items = [item.strip() for item in value.split(";") if item.strip()]
    faults = tuple(_item(item) for item in items)
    kinds = [f.kind for f in faults]
    for kind in kinds:
        if kinds.count(kind) > 1:
            raise ValueError(f"fault {kind!r} is given twice")
    return FaultPlan(value.strip(), faults)


def _item(item: str) -> FaultSpec:
    name, _, params = item.partition(":")
    kind = name.strip().lower()
    if kind not in FAULT_KINDS:
        raise ValueError(f"unknown fault {name.strip()!r} (known: {', '.join(FAULT_KINDS)})")
    pairs = [p.strip() for p in params.split(",") if p.strip()] if params else []
    given: list[tuple[str, str]] = []
    allowed = _SKEW_KEYS if kind == "skew" else _KEYS
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip().lower()
        if not sep or key not in allowed:
            raise ValueError(f"fault {kind!r}: {pair!r} is no key=value of {sorted(allowed)}")
        if key not in _REPEATABLE and any(key == seen for seen, _ in given):
            raise ValueError(f"fault {kind!r}: key {key!r} is given twice")
        given.append((key, raw.strip()))
    defaulted = not any(key in _TRIGGERS for key, _ in given)
    if defaulted:
        given = [*DEFAULTS[kind].items(), *given]
    elif kind == "skew" and not any(key == "partition" for key, _ in given):
        given.append(("partition", DEFAULTS["skew"]["partition"]))
    try:
        return replace(_build(kind, given), defaulted=defaulted)
    except ValueError as err:
        raise ValueError(f"fault {kind!r}: {err}") from None


def _build(kind: str, given: list[tuple[str, str]]) -> FaultSpec:
    spec = FaultSpec(kind)
    at: list[int] = []
    for key, raw in given:
        if key == "every":
            spec = replace(spec, every_ms=parse_duration_ms(raw))
        elif key == "by":
            spec = replace(spec, by_ms=parse_duration_ms(raw))
        elif key == "at":
            at.append(_tso(raw))
        elif key == "p":
            spec = replace(spec, p=_probability(raw))
        elif key == "nth":
            nth = _non_negative(key, raw)
            if nth == 0:
                raise ValueError("nth=0: the first eligible message is nth=1")
            spec = replace(spec, nth=nth)
        elif key == "seed":
            spec = replace(spec, seed=_non_negative(key, raw))
        elif key == "partition":
            spec = replace(spec, partition=_non_negative(key, raw))
        elif not raw:
            raise ValueError("topic= is empty: name the topic, or leave the key out for all")
        else:
            spec = replace(spec, topic=raw)
    return replace(spec, at=tuple(sorted(at)))


def _shown(raw: str) -> str:
    """A value as a one-line message shows it: quoted when it holds anything unprintable."""
    return raw if raw.isprintable() else repr(raw)


def _probability(raw: str) -> float:
    try:
        p = float(raw)
    except ValueError:
        raise ValueError(f"p={_shown(raw)} is no number") from None
    if not 0.0 < p <= 1.0:  # NaN fails it too
        raise ValueError(f"p={_shown(raw)} must be in (0, 1]")
    return p


def _tso(raw: str) -> int:
    tso = _non_negative("at", raw)
    if tso >= 1 << 64:
        raise ValueError(f"at={_shown(raw)} is past every TSO (they are 64-bit)")
    return tso


def _non_negative(key: str, raw: str) -> int:
    try:
        number = int(raw)
    except ValueError:
        raise ValueError(f"{key}={_shown(raw)} is not an integer") from None
    if number < 0:
        raise ValueError(f"{key}={_shown(raw)} must not be negative")
    return number


def check_partitions(plan: FaultPlan, partitions: int, where: str) -> None:
    """FaultSpecError for a ``partition=`` no topic of ``where`` has (its ``partitions`` per
    topic are known up front): such a fault could never fire."""
    for spec in plan.faults:
        if spec.partition is not None and spec.partition >= partitions:
            raise FaultSpecError(
                f"{where}: fault {spec.kind!r}: partition={spec.partition} does not exist: "
                f"the topics have {partitions} partition(s), 0..{partitions - 1}"
            )
