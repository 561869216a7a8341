"""The replay benchmark group on a small run: every contender measured, each replay and play
figure next to its raw baseline, the note's CPU and RSS filled in."""

from __future__ import annotations

import re

from tisink.bench.replay import ORDERED, replay_group


def test_replay_group_measures_every_contender() -> None:
    results = replay_group(None, 500, 2, 1)
    cases = [(r.case, r.baseline) for r in results]
    assert cases[:5] == [
        ("tisink replay --preload, kafka-client=aiokafka, line rate", "raw aiokafka send_batch"),
        (
            "tisink replay --preload, kafka-client=librdkafka, line rate",
            "raw confluent-kafka produce",
        ),
        ("tisink replay --preload, kafka-client=librdkafka, line rate", ORDERED),
        ("tisink replay streamed, kafka-client=aiokafka, end to end", "raw aiokafka send_batch"),
        (
            "tisink replay streamed, kafka-client=librdkafka, end to end",
            "raw confluent-kafka produce",
        ),
    ]
    assert len(results) == 9  # and play with each client against both raw senders
    for result in results:
        assert result.rows_per_s > 0 and result.baseline_rows_per_s
        assert "us/msg" in result.note
    assert "RSS" in results[0].note and "end to end" in results[0].note
    end_to_end = re.search(r"end to end ([\d,]+) msg/s", results[0].note)
    assert end_to_end is not None  # the line rate leaves out start-up and the reading
    assert results[0].rows_per_s > float(end_to_end.group(1).replace(",", ""))
