"""ChangefeedConfig: TiCDC's TOML keys, URI overrides, validation naming the key."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tisink.codec.simple.options import SimpleOptions
from tisink.eventsink.router import DispatchRule
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import ChangefeedConfigError, SinkURIError
from tisink.sink.uri import parse_sink_uri

TICDC_FILE = """
case-sensitive = true
time-zone = "Asia/Shanghai"
force-replicate = false

[filter]
rules = ["*.*"]

[integrity]
integrity-check-level = "correctness"
corruption-handle-level = "warn"

[sink]
protocol = "simple"
send-bootstrap-interval-in-sec = 60
send-bootstrap-in-msg-count = 500
send-bootstrap-to-all-partition = false
send-all-bootstrap-at-start = true
output-raw-change-event = true
encoder-concurrency = 32

[mounter]
worker-num = 16

[[sink.dispatchers]]
matcher = ["shop.*"]
topic = "shop_{table}"
partition = "index-value"
index = "uk_code"

[[sink.dispatchers]]
matcher = ["hr.people", "hr.pay"]
dispatcher = "ts"

[[sink.dispatchers]]
matcher = ["log.*"]
partition = "columns"
columns = ["a", "b"]

[sink.kafka-config]
max-message-bytes = 2097152
partition-num = 6
compression = "lz4"
required-acks = 1
sasl-user = "cdc"
sasl-password = "secret"

[sink.kafka-config.codec-config]
encoding-format = "avro"

[sink.kafka-config.large-message-handle]
large-message-handle-option = "claim-check"
large-message-handle-compression = "snappy"
claim-check-storage-uri = "file:///tmp/claims"
claim-check-raw-value = true
"""


def test_a_ticdc_file_is_read_with_every_supported_key(caplog):
    caplog.set_level(logging.WARNING, logger="tisink.sink.config")
    config = ChangefeedConfig.from_toml(TICDC_FILE)
    assert config.case_sensitive and config.output_raw_change_event
    assert config.protocol == "simple"
    assert config.dispatch_rules == (
        DispatchRule(("shop.*",), topic="shop_{table}", partition="index-value", index="uk_code"),
        DispatchRule(("hr.people", "hr.pay"), partition="ts"),
        DispatchRule(("log.*",), partition="columns", columns=("a", "b")),
    )
    kafka = config.kafka
    assert (kafka.partition_num, kafka.compression, kafka.required_acks) == (6, "lz4", 1)
    assert (kafka.sasl_user, kafka.sasl_password) == ("cdc", "secret")
    assert "secret" not in repr(config)
    enc = config.encoder
    assert (enc.protocol, enc.encoding_format, enc.max_message_bytes) == ("simple", "avro", 2097152)
    assert enc.enable_row_checksum and enc.time_zone == "Asia/Shanghai"
    assert enc.options == SimpleOptions(60, 500, False, True)
    assert enc.bootstrap is enc.options
    assert enc.large_message_handle_option == "claim-check"
    assert enc.large_message_handle_compression == "snappy"
    assert enc.claim_check_storage_uri == "file:///tmp/claims" and enc.claim_check_raw_value
    assert set(config.ignored_keys) == {"force-replicate", "filter", "mounter"}
    assert config.corruption_handle_level == "warn"
    assert config.encoder_concurrency == 32
    warnings = [r.getMessage() for r in caplog.records]
    assert sum("mounter" in w for w in warnings) == 1


def test_unknown_keys_are_reported_once_with_a_suggestion(caplog):
    """A misspelt TOML key and a misspelt URI parameter get the same warning, once each, however
    often the same config is read."""
    caplog.set_level(logging.WARNING, logger="tisink.sink.config")
    text = "[sink]\nsend-bootstrap-interval-in-secs = 5\n"
    for _ in range(3):
        config = ChangefeedConfig.from_toml(text).with_uri(
            parse_sink_uri("kafka://h:1/t?partition-numm=3")
        )
    assert config.ignored_keys == ("sink.send-bootstrap-interval-in-secs", "partition-numm")
    assert config.kafka.partition_num is None
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings == [
        "<toml>: sink.send-bootstrap-interval-in-secs is not a setting tisink knows and is "
        "ignored (did you mean send-bootstrap-interval-in-sec?)",
        "sink URI kafka://h:1/t?partition-numm=3: partition-numm is not a setting tisink knows "
        "and is ignored (did you mean partition-num?)",
    ]


def test_ticdc_settings_tisink_does_not_implement_are_named_as_such(caplog):
    """Not a typo: no suggestion, and the warning says tisink lacks the TiCDC feature."""
    caplog.set_level(logging.WARNING, logger="tisink.sink.config")
    text = (
        "sql-mode = 'ANSI'\n[scheduler]\nregion-threshold = 1\n"
        "[sink.pulsar-config]\nconnection-timeout = 1\n"
    )
    uri = "kafka://h:1/t?kafka-version=2.4.0&sasl-oauth-client-id=c&partition-numb=2"
    ChangefeedConfig.from_toml(text).with_uri(parse_sink_uri(uri))
    warnings = [r.getMessage() for r in caplog.records]
    unimplemented = "is a TiCDC setting tisink does not implement; ignored"
    assert warnings == [
        f"<toml>: sql-mode {unimplemented}",
        f"<toml>: scheduler.region-threshold {unimplemented}",
        f"<toml>: sink.pulsar-config {unimplemented}",
        f"sink URI {uri}: kafka-version {unimplemented}",
        f"sink URI {uri}: sasl-oauth-client-id {unimplemented}",
        f"sink URI {uri}: partition-numb is not a setting tisink knows and is ignored "
        "(did you mean partition-num?)",
    ]


def test_a_plugin_scheme_keeps_its_own_parameters_unreported(caplog):
    caplog.set_level(logging.WARNING, logger="tisink.sink.config")
    config = ChangefeedConfig().with_uri(parse_sink_uri("memory://x?bucket=b"), None)
    assert config.ignored_keys == () and not caplog.records


def test_a_uri_protocol_reads_that_protocols_keys_from_the_file():
    """The options object follows the protocol the URI picks, over the file's keys."""
    text = "[sink]\nprotocol = 'debug'\nsend-bootstrap-in-msg-count = 7\n"
    config = ChangefeedConfig.from_toml(text)
    assert config.encoder.bootstrap is None
    simple = config.with_uri(parse_sink_uri("kafka://h:1/t?protocol=simple"))
    assert simple.encoder.options.send_bootstrap_in_msg_count == 7


def test_inline_dispatchers_array_and_defaults():
    config = ChangefeedConfig.from_toml(
        '[sink]\ndispatchers = [{matcher = ["a.*"], topic = "x"}, {matcher = ["b.*"]}]\n'
    )
    assert config.dispatch_rules == (
        DispatchRule(("a.*",), topic="x"),
        DispatchRule(("b.*",)),
    )
    assert config.protocol is None and config.encoder.protocol == "simple"
    debug = config.with_protocol_default("debug")
    assert debug.encoder.protocol == "debug" and debug.protocol is None
    assert debug.dispatch_rules == config.dispatch_rules


def test_file_path_and_path_string(tmp_path):
    path = tmp_path / "changefeed.toml"
    path.write_text('[sink]\nprotocol = "debug"\n')
    assert ChangefeedConfig.from_toml(path).protocol == "debug"
    assert ChangefeedConfig.from_toml(str(path)).source == str(path)


def test_uri_parameters_override_the_file():
    config = ChangefeedConfig.from_toml(TICDC_FILE).with_uri(
        parse_sink_uri(
            "kafka://h:1/t?protocol=debug&partition-num=2&max-message-bytes=1000"
            "&encoding-format=json&large-message-handle-option=none&compression=zstd"
            "&required-acks=-1&kafka-client-id=me&auto-create-topic=false&replication-factor=3"
            "&claim-check-raw-value=false&encoder-concurrency=2"
        )
    )
    assert config.encoder_concurrency == 2
    assert config.protocol == "debug"
    enc, kafka = config.encoder, config.kafka
    assert (kafka.partition_num, enc.max_message_bytes, enc.encoding_format) == (2, 1000, "json")
    assert enc.large_message_handle_option == "none" and not enc.claim_check_raw_value
    assert (kafka.compression, kafka.required_acks, kafka.client_id) == ("zstd", -1, "me")
    assert not kafka.auto_create_topic and kafka.replication_factor == 3


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('[sink]\nprotocol = "maxwell"', "unknown protocol 'maxwell'; expected one of"),
        ("[sink]\nsend-bootstrap-in-msg-count = 'x'", "sink.send-bootstrap-in-msg-count"),
        (
            "[sink]\nsend-bootstrap-in-msg-count = -5",
            "sink.send-bootstrap-in-msg-count: must not be negative",
        ),
        (
            "[sink]\nsend-bootstrap-interval-in-sec = -1",
            "sink.send-bootstrap-interval-in-sec: must not be negative",
        ),
        ("[sink.kafka-config]\nmax-message-bytes = -1", "max-message-bytes: must be positive"),
        ("[sink.kafka-config]\nrequired-acks = 2", "kafka-config.required-acks: must be -1 or 1"),
        ('[sink.kafka-config.codec-config]\nencoding-format = "xml"', "encoding-format"),
        ('time-zone = "Mars/Olympus"', "unknown time zone"),
        ('[integrity]\nintegrity-check-level = "paranoid"', "integrity-check-level"),
        ("case-sensitive = 1", "case-sensitive: expected true or false"),
        (
            "[sink]\nprotocol = 'debug'\n"
            "[sink.kafka-config.codec-config]\nencoding-format = 'avro'",
            "protocol debug has no encoding-format 'avro'",
        ),
        ("[sink]\ndispatchers = 3", "sink.dispatchers must be a list"),
        ("[[sink.dispatchers]]\ntopic = 'x'", r"dispatchers\[0\].matcher"),
        ("[[sink.dispatchers]]\nmatcher = []", "needs at least one table filter"),
        ("[[sink.dispatchers]]\nmatcher = ['a.*']\ncolumns = 'a'", "columns: expected a list"),
        ("[sink\nprotocol = 1", "invalid TOML"),
        ("[sink]\nencoder-concurrency = -1", "encoder-concurrency: must not be negative"),
    ],
)
def test_bad_files_name_the_key(text, reason):
    with pytest.raises(ChangefeedConfigError, match=reason):
        ChangefeedConfig.from_toml(text)


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("partition-num=0", "partition-num='0': must be positive"),
        ("partition-num=three", "partition-num='three': expected an integer"),
        ("auto-create-topic=yes", "auto-create-topic='yes'"),
        ("protocol=avro2", "unknown protocol 'avro2'"),
        ("encoder-concurrency=many", "encoder-concurrency='many': expected an integer"),
        ("large-message-handle-option=claim-check", "claim-check-storage-uri"),
    ],
)
def test_bad_uri_parameters_name_the_parameter(query, reason):
    with pytest.raises(SinkURIError, match=reason):
        ChangefeedConfig().with_uri(parse_sink_uri(f"kafka://h:1/t?{query}"))


def test_unreadable_file_is_named(tmp_path):
    with pytest.raises(ChangefeedConfigError, match="cannot read"):
        ChangefeedConfig.from_toml(Path(tmp_path / "missing.toml"))
