"""A listed fault that fired 0 times is reported with why, from what the play's driver knows
(issue 44 item 17): a trigger past the stream's end, a topic or partition without messages,
no message of the kind, a count or span the stream did not reach."""

from __future__ import annotations

import logging

import pytest

from tisink.eventsink.faults import parse_faults
from tisink.eventsink.faults.unfired import PlayedStream, not_fired

CHECKPOINT = 449_459_101_368_320_000
STREAM = PlayedStream(
    partitions={("tidb-cdc", 0), ("tidb-cdc", 1)},
    messages={"DML": 1000, "DDL": 26, "WATERMARK": 8},
    checkpoint_ts=CHECKPOINT,
)


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        (f"stale-watermark:at={CHECKPOINT + 1}", f"at={CHECKPOINT + 1} is past the stream's "),
        ("bab:every=1h", "every=1h: no partition's DML runs that follow another"),
        ("duplicate-ddl:topic=nope", "topic 'nope' received no message (written: topic "),
        ("bab:partition=7", "partition 7 received no message (written: topic 'tidb-cdc' "),
        ("producer-retry:p=0.0001", "p=0.0001 drew none of the partitions' DML runs"),
        ("restart-replay:nth=5", "nth=5: no partition had 5 WATERMARKs (8 WATERMARK messages in "),
        ("skew", "partition 0 held no message back"),
        ("split-table:nth=5000", "nth=5000: no partition had 5000 DML runs of a table with "),
        ("ts-regression:p=0.0001", "p=0.0001 drew none of the partitions' DML runs of a "),
        ("ts-regression:partition=9", "partition 9 received no message"),
    ],
)
def test_each_reason(spec: str, reason: str) -> None:
    reasons = not_fired(parse_faults(spec), set(), STREAM)
    assert list(reasons) == [spec.split(":")[0]]
    assert reason in next(iter(reasons.values()))


def test_a_default_trigger_says_so_and_a_fired_kind_is_not_listed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    plan = parse_faults("restart-replay;bab:p=0.5")
    two_each = PlayedStream(STREAM.partitions, {"DML": 1000, "WATERMARK": 4}, CHECKPOINT)
    with caplog.at_level(logging.WARNING):
        reasons = not_fired(plan, {"bab"}, two_each)
    assert list(reasons) == ["restart-replay"]
    assert reasons["restart-replay"].endswith("(the default trigger)")
    assert "fault restart-replay fired 0 times: nth=3" in caplog.text


def test_a_stream_without_the_kinds_messages() -> None:
    stream = PlayedStream(set(), {"DML": 10}, 0)
    reasons = not_fired(parse_faults("duplicate-ddl;duplicate-watermark"), set(), stream)
    assert reasons == {
        "duplicate-ddl": "the stream has no DDL message",
        "duplicate-watermark": "the stream has no WATERMARK message",
    }
