"""The partitions of ``tisink replay``'s target, settled before anything is created.

With ``--routing same`` each record goes to the partition number it had, so the target needs
at least the source's partitions. A target Kafka topic that exists is taken as it is (refused
when it has fewer); one that does not (and a file target) gets ``partition-num`` when the URI
gives it (refused when fewer) and otherwise the source's count, so a replay into a new topic
needs no partition count of its own. The Kafka topic is only looked up here, never created: a
refused replay leaves nothing behind. ``--routing key`` takes any count, and schemes other than
Kafka and files are left to the sender's own check.
"""

from __future__ import annotations

import dataclasses

from tisink.replay.errors import ReplayRefused
from tisink.replay.routing import Routing
from tisink.sink import SinkFactory
from tisink.sink.capabilities import MQTarget

SETTLED_SCHEMES = ("kafka", "file")
"""Schemes whose partition count is known before the producer opens."""
PARTITION_NUM = "partition-num"


async def settle_partitions(
    factory: SinkFactory,
    target: MQTarget,
    source_topic: str,
    source_partitions: int,
    routing: Routing,
) -> MQTarget:
    """``target`` with the partition count a new topic gets; ReplayRefused (nothing created)
    when it has, or would get, fewer partitions than the source under ``--routing same``."""
    if routing is not Routing.same or target.scheme not in SETTLED_SCHEMES:
        return target
    if source_partitions <= 0:
        return target
    topic = target.default_topic
    existing = await existing_partitions(factory, target)
    if existing is not None:
        if existing < source_partitions:
            raise ReplayRefused(
                f"the source topic {source_topic} has {source_partitions} partitions and the "
                f"target topic {topic} {existing}; route by key (--routing key) or replay into "
                "a topic with as many partitions"
            )
        return target
    given = target.config.kafka.partition_num
    if given is None:
        config = target.config.with_setting(
            PARTITION_NUM, source_partitions, f"the source topic {source_topic}'s partitions"
        )
        return dataclasses.replace(target, config=config)
    if given < source_partitions:
        raise ReplayRefused(
            f"the source topic {source_topic} has {source_partitions} partitions and "
            f"{PARTITION_NUM}={given} gives the target topic {topic} {given}; drop "
            f"{PARTITION_NUM} (the topic then gets the source's {source_partitions}), "
            "route by key (--routing key) or raise it; nothing was created"
        )
    return target


async def existing_partitions(factory: SinkFactory, target: MQTarget) -> int | None:
    """The partitions of the target topic when it exists on a Kafka cluster (looked up, never
    created); None when it does not, or for a file target (whose count is its URI's)."""
    if target.scheme != "kafka":
        return None
    # imported here: the file scheme must work where the Kafka client libraries are missing
    from tisink.eventsink.kafka.topic_manager import KafkaTopicManager

    kafka = target.config.kafka.for_target(factory.uri.hosts, target.default_topic)
    topics = await KafkaTopicManager.connect(kafka)
    try:
        return await topics.describe_partitions(kafka.topic)
    finally:
        await topics.close()
