"""The replay benchmark group on a small run: every contender measured, each replay and play
figure next to its raw baseline, the note's CPU and RSS filled in."""

from __future__ import annotations

from tisink.bench.replay import ORDERED, replay_group


def test_replay_group_measures_every_contender() -> None:
    results = replay_group(None, 500, 2, 1)
    cases = [(r.case, r.baseline) for r in results]
    assert cases[:3] == [
        ("tisink replay, kafka-client=aiokafka", "raw aiokafka send_batch"),
        ("tisink replay, kafka-client=librdkafka", "raw confluent-kafka produce"),
        ("tisink replay, kafka-client=librdkafka", ORDERED),
    ]
    assert len(results) == 7  # and play with each client against both raw senders
    for result in results:
        assert result.rows_per_s > 0 and result.baseline_rows_per_s
        assert "us/msg" in result.note
    assert "RSS" in results[0].note
