"""Why a listed fault fired 0 times, from what a play's driver knows on every engine: the
plan, the kinds the summary lists, the partitions written, the messages by type and the
checkpoint. A fault that never fires is no test of a consumer, so the play says so (summary and
console) rather than letting an empty ``faults`` pass for a stream with faults in it."""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from tisink.eventsink.faults.spec import FaultPlan, FaultSpec

log = logging.getLogger(__name__)

POINTS: dict[str, str] = {
    "restart-replay": "WATERMARKs",
    "bab": "DML runs that follow another since the last WATERMARK",
    "duplicate-ddl": "DDLs",
    "duplicate-watermark": "WATERMARKs",
    "stale-watermark": "WATERMARKs after the first",
    "producer-retry": "DML runs",
    "split-table": "DML runs of a table with none held",
    "ts-regression": "DML runs of a table with none held",
    "corrupt-checksum": "DML runs with a row checksum",
}
"""The messages of a partition a kind can fire at (its eligible messages)."""

_NEEDS: dict[str, str] = {
    "restart-replay": "WATERMARK",
    "bab": "DML",
    "duplicate-ddl": "DDL",
    "duplicate-watermark": "WATERMARK",
    "stale-watermark": "WATERMARK",
    "producer-retry": "DML",
    "split-table": "DML",
    "ts-regression": "DML",
    "corrupt-checksum": "DML",
}
"""The message type a kind's eligible messages are."""


@dataclass(frozen=True)
class PlayedStream:
    """What the play wrote: ``partitions`` (topic, partition) (empty when the sinks do not
    report them), ``messages`` by type, and the last checkpoint ts."""

    partitions: Collection[tuple[str, int]]
    messages: Mapping[str, int]
    checkpoint_ts: int


def not_fired(plan: FaultPlan, fired: Collection[str], stream: PlayedStream) -> dict[str, str]:
    """Each listed kind that fired 0 times -> why; each is logged as a warning too."""
    reasons: dict[str, str] = {}
    for spec in plan.faults:
        if spec.kind not in fired:
            reasons[spec.kind] = _reason(spec, stream)
            log.warning("fault %s fired 0 times: %s", spec.kind, reasons[spec.kind])
    return reasons


def _reason(spec: FaultSpec, stream: PlayedStream) -> str:
    written = sorted(stream.partitions)
    if written and not any(spec.applies_to(topic, p) for topic, p in written):
        return f"{_limit(spec)} received no message (written: {_partitions(written)})"
    if spec.kind == "skew":
        return f"partition {spec.partition} held no message back"
    needed = _NEEDS[spec.kind]
    count = stream.messages.get(needed, 0)
    if count == 0:
        return f"the stream has no {needed} message"
    reasons = []
    end = stream.checkpoint_ts
    if spec.at and end and spec.at[0] > end:
        reasons.append(f"at={spec.at[0]} is past the stream's last commit ts, {end}")
    elif spec.at:
        reasons.append(f"none of the {POINTS[spec.kind]} came at or after at={spec.at[0]}")
    if spec.nth:
        per = f" ({count} {needed} messages in {len(written)} partition(s))" if written else ""
        reasons.append(f"nth={spec.nth}: no partition had {spec.nth} {POINTS[spec.kind]}{per}")
    if spec.every_ms:
        reasons.append(
            f"every={_duration(spec.every_ms)}: no partition's {POINTS[spec.kind]} span that "
            "much commit time"
        )
    if spec.p:
        reasons.append(f"p={spec.p:g} drew none of the partitions' {POINTS[spec.kind]}")
    if spec.kind == "corrupt-checksum":
        reasons.append(
            "its points are row messages that carry a checksum: [integrity] "
            'integrity-check-level = "correctness" with protocol simple (JSON, uncompressed) '
            "or avro"
        )
    text = "; ".join(reasons)
    return f"{text} (the default trigger)" if spec.defaulted else text


def _limit(spec: FaultSpec) -> str:
    parts = []
    if spec.topic is not None:
        parts.append(f"topic {spec.topic!r}")
    if spec.partition is not None:
        parts.append(f"partition {spec.partition}")
    return " ".join(parts)


def _partitions(written: list[tuple[str, int]]) -> str:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in written:
        by_topic.setdefault(topic, []).append(partition)
    return ", ".join(f"topic {t!r} partitions {_span(ps)}" for t, ps in by_topic.items())


def _span(partitions: list[int]) -> str:
    if partitions == list(range(partitions[0], partitions[-1] + 1)):
        return f"{partitions[0]}-{partitions[-1]}" if len(partitions) > 1 else str(partitions[0])
    return ",".join(map(str, partitions))


def _duration(ms: int) -> str:
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"
