"""Topic manager: create missing topics, respect existing ones, read size limits.

Follows TiCDC's ``kafkaTopicManager`` and ``adjustOptions``: an existing topic keeps its
partition count; a missing one is created with ``partition-num`` (default 3) when
``auto-create-topic`` is on; ``max-message-bytes`` is lowered to the topic's
``max.message.bytes`` - 128, or the broker's ``message.max.bytes`` - 128 for a topic that does
not exist yet, when the cluster reports them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.errors import KafkaConnectionError, KafkaError
from aiokafka.protocol.metadata import MetadataRequest

from tisink.eventsink.kafka.config import KafkaConfig
from tisink.eventsink.kafka.errors import KafkaConfigError, KafkaSinkError, KafkaUnreachableError
from tisink.eventsink.kafka.unreachable import (
    ConnectionFailures,
    dialing,
    os_reason,
    unreachable,
    watch_aiokafka_bootstrap,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: TiCDC's maxMessageBytesOverhead: the margin kept under the broker's limit
MAX_MESSAGE_BYTES_OVERHEAD = 128
TOPIC_MAX_MESSAGE_BYTES = "max.message.bytes"
BROKER_MESSAGE_MAX_BYTES = "message.max.bytes"
_TOPIC_ALREADY_EXISTS = 36
_UNKNOWN_TOPIC_OR_PARTITION = 3
_FIRST_DIAL_BACKOFF_S = 0.1
_MAX_DIAL_BACKOFF_S = 1.0

watch_aiokafka_bootstrap()


async def dial(config: KafkaConfig, start: Callable[[], Awaitable[T]], what: str) -> T:
    """Start a client, trying again while every bootstrap server refuses, until
    ``dial-timeout``; name the servers, what each said and how long on failure."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    failures = ConnectionFailures()
    token = dialing.set(failures)
    backoff = _FIRST_DIAL_BACKOFF_S
    try:
        async with asyncio.timeout(config.dial_timeout_s):
            while True:
                try:
                    return await start()
                except KafkaConnectionError:
                    log.debug("%s: no bootstrap server answered; trying again", what)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, _MAX_DIAL_BACKOFF_S)
    except TimeoutError as exc:
        raise KafkaUnreachableError(
            unreachable(config.bootstrap_servers, failures, loop.time() - began, "dial-timeout")
        ) from exc
    except (KafkaError, OSError) as exc:
        raise KafkaUnreachableError(
            f"cannot reach Kafka at {config.bootstrap_servers} ({what}): {os_reason(exc)}"
        ) from exc
    finally:
        dialing.reset(token)


class KafkaTopicManager:
    """Partition counts per topic (cached), topic creation and size limits over aiokafka admin."""

    def __init__(self, config: KafkaConfig, admin: AIOKafkaAdminClient) -> None:
        self.config = config
        self._admin = admin
        # aiokafka's admin API has no Metadata call that forbids auto-creation; Tansu (and
        # brokers with auto.create.topics.enable) would create the topic on a plain lookup.
        self._client = admin._client
        self._partitions: dict[str, int] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    @classmethod
    async def connect(cls, config: KafkaConfig) -> KafkaTopicManager:
        admin = AIOKafkaAdminClient(**config.client_kwargs())
        try:
            await dial(config, admin.start, "admin client")
        except KafkaUnreachableError:
            await admin.close()
            raise
        return cls(config, admin)

    async def partition_count(self, topic: str) -> int:
        """Partitions of ``topic``; creates it (``partition-num``) when missing and allowed."""
        cached = self._partitions.get(topic)
        if cached is not None:
            return cached
        async with self._locks.setdefault(topic, asyncio.Lock()):
            cached = self._partitions.get(topic)
            if cached is not None:
                return cached
            count = await self.describe_partitions(topic)
            if count is None:
                if not self.config.auto_create_topic:
                    raise KafkaConfigError(
                        f"topic {topic} does not exist and auto-create-topic is false"
                    )
                count = await self._create(topic)
            self._partitions[topic] = count
            return count

    async def describe_partitions(self, topic: str) -> int | None:
        """Partition count of an existing topic, None when it does not exist (never creates)."""
        request = MetadataRequest([topic], allow_auto_topic_creation=False)
        response = await self._call(topic, self._client.send(self._node_id(), request))
        for entry in response.to_object()["topics"]:
            if entry["topic"] != topic:
                continue
            error_code = entry["error_code"]
            if error_code == _UNKNOWN_TOPIC_OR_PARTITION:
                return None
            if error_code != 0:
                raise KafkaSinkError(f"metadata of topic {topic} failed with error {error_code}")
            return len(entry["partitions"])
        return None

    async def topic_config(self, topic: str, name: str) -> str | None:
        """One config value of ``topic`` as the cluster reports it, None when not reported."""
        resource = ConfigResource(ConfigResourceType.TOPIC, topic)
        return _config_value(
            await self._call(topic, self._admin.describe_configs([resource])), name
        )

    async def broker_config(self, name: str) -> str | None:
        """One config value of a broker, None when the broker does not report it."""
        resource = ConfigResource(ConfigResourceType.BROKER, str(self._node_id()))
        responses = await self._call("(broker)", self._admin.describe_configs([resource]))
        return _config_value(responses, name)

    async def adjust_max_message_bytes(self, topic: str, configured: int) -> int:
        """``min(configured, limit - 128)`` with the topic's limit, else the broker's."""
        if await self.describe_partitions(topic) is not None:
            source, limit = (
                f"topic {topic} {TOPIC_MAX_MESSAGE_BYTES}",
                await self.topic_config(topic, TOPIC_MAX_MESSAGE_BYTES),
            )
        else:
            source, limit = (
                f"broker {BROKER_MESSAGE_MAX_BYTES}",
                await self.broker_config(BROKER_MESSAGE_MAX_BYTES),
            )
        if limit is None:
            return configured
        allowed = int(limit) - MAX_MESSAGE_BYTES_OVERHEAD
        if allowed <= 0:
            raise KafkaConfigError(f"{source} is {limit}, too small to carry any message")
        if allowed < configured:
            log.warning(
                "max-message-bytes lowered from %d to %d (%s is %s)",
                configured,
                allowed,
                source,
                limit,
            )
            return allowed
        return configured

    async def close(self) -> None:
        await self._admin.close()

    async def _create(self, topic: str) -> int:
        wanted = self.config.create_partition_num
        new_topic = NewTopic(topic, wanted, self.config.replication_factor)
        response: Any = await self._call(topic, self._admin.create_topics([new_topic]))
        # aiokafka's Response classes are built per API version; topic_errors is CreateTopics'
        for name, error_code, message in (t[:3] for t in response.topic_errors):
            if name == topic and error_code not in (0, _TOPIC_ALREADY_EXISTS):
                raise KafkaSinkError(
                    f"creating topic {topic} with {wanted} partitions failed: "
                    f"{message or 'no message'} (error {error_code})"
                )
        log.info("created topic %s with %d partitions", topic, wanted)
        return await self._wait_visible(topic)

    async def _wait_visible(self, topic: str) -> int:
        """Metadata can lag a creation on a real cluster; poll until the topic shows."""
        deadline = asyncio.get_running_loop().time() + self.config.request_timeout_s
        while True:
            count = await self.describe_partitions(topic)
            if count:
                return count
            if asyncio.get_running_loop().time() > deadline:
                raise KafkaSinkError(
                    f"topic {topic} was created but did not appear in metadata within "
                    f"{self.config.request_timeout_s:g}s"
                )
            await asyncio.sleep(0.05)

    def _node_id(self) -> int:
        brokers = self._client.cluster.brokers()
        if not brokers:
            raise KafkaSinkError(f"Kafka at {self.config.bootstrap_servers} reports no broker")
        return min(b.nodeId for b in brokers)

    async def _call(self, topic: str, request: Awaitable[T]) -> T:
        try:
            return await request
        except KafkaError as exc:
            raise KafkaSinkError(
                f"Kafka admin request for topic {topic} failed: {type(exc).__name__}: {exc}"
            ) from exc


def _config_value(responses: list[Any], name: str) -> str | None:
    for response in responses:
        for error_code, _msg, _type, _name, entries, *_ in response.resources:
            if error_code != 0:
                continue
            for entry in entries:
                if entry[0] == name and entry[1] is not None:
                    return str(entry[1])
    return None
