"""``protocol=avro`` end to end: a play into Apache Kafka with its schemas in the embedded
Apicurio Registry, read back by confluent-kafka's ``AvroDeserializer`` through the registry (the
standard Python client, independent of tisink's encoder and decoder).

Each table has a topic of its own (``{schema}_{table}``, as TiCDC's Avro needs), so a subject
holds one table's schemas and a DDL that changes a table adds a version under its subjects.
"""

from __future__ import annotations

import json
import struct
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext

from tisink.play.run import PlaySpec, run_play

PARTITIONS = 2
QUIET_S = 3.0


def _config(tmp_path: Path, prefix: str) -> Path:
    path = tmp_path / "changefeed.toml"
    path.write_text(
        f'[[sink.dispatchers]]\nmatcher = ["*.*"]\ntopic = "{prefix}_{{schema}}_{{table}}"\n'
        'partition = "index-value"\n',
        encoding="utf-8",
    )
    return path


def _play(bootstrap: str, registry: str, tmp_path: Path, workload: str, rows: int) -> str:
    prefix = f"avro{uuid.uuid4().hex[:6]}"
    uri = (
        f"kafka://{bootstrap}/{prefix}-default?protocol=avro&partition-num={PARTITIONS}"
        f"&schema-registry={registry}&enable-tidb-extension=true&kafka-client=librdkafka"
    )
    summary = run_play(
        PlaySpec(
            workload=workload,
            seed=5,
            rows=rows,
            sink_uri=uri,
            config_path=_config(tmp_path, prefix),
            engine="inline",
        )
    )
    assert summary.error is None and summary.verified is True, summary.error
    assert summary.rows == rows
    return prefix


def _read_all(bootstrap: str, prefix: str) -> list[Any]:
    """Every record of the play's topics, read until quiet (never by end offsets)."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": uuid.uuid4().hex,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        topics = [t for t in consumer.list_topics(timeout=10).topics if t.startswith(prefix)]
        assert topics, f"no topic starts with {prefix}"
        consumer.subscribe(topics)
        messages, quiet_from = [], time.monotonic()
        while time.monotonic() - quiet_from < QUIET_S:
            message = consumer.poll(0.3)
            if message is None:
                continue
            assert message.error() is None, message.error()
            messages.append(message)
            quiet_from = time.monotonic()
        return messages
    finally:
        consumer.close()


def _schema_id(framed: bytes) -> int:
    assert framed[0] == 0, "the Confluent wire format starts with a zero magic byte"
    return int(struct.unpack(">I", framed[1:5])[0])


def _decode_everything(registry: str, messages: list[Any]) -> dict[str, Counter[str]]:
    """Every key and value through ``AvroDeserializer``; the operations per table."""
    client = SchemaRegistryClient({"url": registry})
    deserialize = AvroDeserializer(client)
    ops: dict[str, Counter[str]] = defaultdict(Counter)
    for message in messages:
        topic = message.topic()
        key = message.key()
        assert key is not None, f"{topic}: every demo table has a handle key"
        assert deserialize(key, SerializationContext(topic, MessageField.KEY)), topic
        value = deserialize(message.value(), SerializationContext(topic, MessageField.VALUE))
        if value is None:  # a tombstone: TiCDC's DELETE
            assert message.value() is None, f"{topic}: a DELETE's value is null, not empty"
            ops[topic]["d"] += 1
            continue
        assert value["_tidb_op"] in ("c", "u"), value
        assert value["_tidb_commit_physical_time"] == value["_tidb_commit_ts"] >> 18
        ops[topic][value["_tidb_op"]] += 1
    return ops


def test_every_demo_message_decodes_through_the_registry(
    apache_kafka_bootstrap: str, schema_registry_url: str, tmp_path: Path
) -> None:
    rows = 3000
    prefix = _play(apache_kafka_bootstrap, schema_registry_url, tmp_path, "demo", rows)
    messages = _read_all(apache_kafka_bootstrap, prefix)
    ops = _decode_everything(schema_registry_url, messages)
    assert sum(sum(c.values()) for c in ops.values()) == rows == len(messages)
    assert all(ops[t]["c"] for t in ops) and sum(c["u"] for c in ops.values()) > 0
    assert sum(c["d"] for c in ops.values()) > 0
    # a DDL that changes a table registers a new version under its value subject; messages
    # written under the older schema id still decode (above), next to the newer ones
    client = SchemaRegistryClient({"url": schema_registry_url})
    evolved = {
        topic
        for topic in ops
        if len(client.get_versions(f"{topic}-value")) > 1
        and len({_schema_id(m.value()) for m in messages if m.topic() == topic and m.value()}) > 1
    }
    assert evolved, "the demo workload's DDLs change a table: some subject has two versions"


def test_every_all_types_value_is_as_ticdc_documents(
    apache_kafka_bootstrap: str, schema_registry_url: str, tmp_path: Path
) -> None:
    """The all-types workload (every MySQL type TiCDC's Avro maps) decodes with the standard
    client, and each column's Avro type is the one TiCDC's documentation gives its MySQL type."""
    rows = 600
    prefix = _play(apache_kafka_bootstrap, schema_registry_url, tmp_path, "all-types", rows)
    messages = _read_all(apache_kafka_bootstrap, prefix)
    ops = _decode_everything(schema_registry_url, messages)
    assert sum(sum(c.values()) for c in ops.values()) == rows == len(messages)
    client = SchemaRegistryClient({"url": schema_registry_url})
    seen: dict[str, set[str]] = defaultdict(set)
    for topic in ops:
        schema = client.get_latest_version(f"{topic}-value").schema
        for field in json.loads(schema.schema_str)["fields"]:
            if field["name"].startswith("_tidb_"):
                continue
            avro_type = field["type"]
            branches = avro_type if isinstance(avro_type, list) else [avro_type]
            (typed,) = [b for b in branches if b != "null"]
            tidb_type = typed["connect.parameters"]["tidb_type"]
            seen[tidb_type].add(typed["type"] if "logicalType" not in typed else "decimal")
    # TiCDC's documented mapping (docs.pingcap.com "TiCDC Avro Protocol", data types)
    documented = {
        "INT": {"int"},
        "INT UNSIGNED": {"int", "long"},  # TINYINT..MEDIUMINT UNSIGNED int, INT UNSIGNED long
        "BIGINT": {"long"},
        "BIGINT UNSIGNED": {"long"},
        "FLOAT": {"float"},
        "DOUBLE": {"double"},
        "BIT": {"bytes"},
        "DECIMAL": {"decimal"},
        "TEXT": {"string"},
        "BLOB": {"bytes"},
        "ENUM": {"string"},
        "SET": {"string"},
        "JSON": {"string"},
        "DATE": {"string"},
        "DATETIME": {"string"},
        "TIMESTAMP": {"string"},
        "TIME": {"string"},
        "YEAR": {"int"},
        "TiDBVECTORFloat32": {"string"},  # VECTOR (TiDB 8.4): tiflow avro.go, not yet documented
    }
    for tidb_type, avro_types in seen.items():
        assert tidb_type in documented, f"an undocumented tidb_type {tidb_type}"
        assert avro_types == documented[tidb_type], (tidb_type, avro_types)
    assert {"INT", "BIGINT", "DECIMAL", "TEXT", "BLOB", "DATETIME", "JSON"} <= set(seen)


EVERY_FAULT = (
    "restart-replay:nth=1;bab:nth=5;duplicate-ddl;duplicate-watermark:nth=1;"
    "stale-watermark:nth=1;producer-retry:nth=10;skew;split-table:nth=10;ts-regression:nth=20"
)


def test_every_fault_kind_plays_and_verifies(
    apache_kafka_bootstrap: str, schema_registry_url: str
) -> None:
    """TiCDC's testing-only DDL and WATERMARK markers on (``avro-enable-watermark``), so the
    kinds that fire at them fire too; verify reads the redeliveries back through the registry."""
    topic = f"avrofaults{uuid.uuid4().hex[:6]}"
    uri = (
        f"kafka://{apache_kafka_bootstrap}/{topic}?protocol=avro&partition-num=3"
        f"&schema-registry={schema_registry_url}&enable-tidb-extension=true"
        "&avro-enable-watermark=true"
    )
    summary = run_play(
        PlaySpec(
            workload="demo",
            seed=3,
            rows=3000,
            sink_uri=uri,
            engine="inline",
            faults=EVERY_FAULT,
            watermark_interval_s=0.25,
        )
    )
    assert summary.error is None and summary.verified is True, summary.error
    fired = {fault["kind"] for fault in summary.to_dict()["faults"]}
    assert fired == {item.split(":")[0] for item in EVERY_FAULT.split(";")}, fired
