"""KafkaConfig: TiCDC's sink URI parameters and [sink.kafka-config] keys, parsed the way a sink
gets them (the changefeed config's one parser, then the URI's brokers and topic)."""

from __future__ import annotations

import ssl

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.config import DEFAULT_MAX_MESSAGE_BYTES
from tisink.core.errors import TisinkError
from tisink.eventsink.kafka import DEFAULT_PARTITION_NUM, KafkaConfig, KafkaConfigError
from tisink.sink import ChangefeedConfig, parse_sink_uri


def from_uri(uri: str) -> KafkaConfig:
    parsed = parse_sink_uri(uri)
    config = ChangefeedConfig().with_uri(parsed)
    return config.kafka.for_target(parsed.hosts, parsed.topic, config.encoder.max_message_bytes)


def test_defaults_follow_ticdc() -> None:
    config = from_uri("kafka://127.0.0.1:9092/cdc")
    assert config.hosts == ("127.0.0.1:9092",)
    assert config.topic == "cdc"
    assert config.partition_num is None
    assert config.create_partition_num == DEFAULT_PARTITION_NUM == 3
    assert config.max_message_bytes == DEFAULT_MAX_MESSAGE_BYTES == 10 * 1024 * 1024
    assert config.required_acks == -1
    assert config.auto_create_topic is True
    assert config.compression == "none"


def test_uri_parameters() -> None:
    config = from_uri(
        "kafka://k1:9092,k2:9093/orders?partition-num=6&replication-factor=2"
        "&max-message-bytes=67108864&compression=ZSTD&required-acks=1"
        "&kafka-client-id=me&auto-create-topic=false&dial-timeout=1m30s&read-timeout=500ms"
        "&sasl-mechanism=scram-sha-512&sasl-user=u&sasl-password=s3cr3t-pw&kafka-version=2.4.0"
    )
    assert config.hosts == ("k1:9092", "k2:9093")
    assert config.bootstrap_servers == "k1:9092,k2:9093"
    assert (config.partition_num, config.replication_factor) == (6, 2)
    assert config.max_message_bytes == 67108864
    assert config.compression == "zstd"
    assert config.required_acks == 1
    assert config.client_id == "me"
    assert config.auto_create_topic is False
    assert config.dial_timeout_s == 90.0
    assert config.request_timeout_s == 0.5
    assert config.sasl_mechanism == "SCRAM-SHA-512"
    kwargs = config.client_kwargs()
    assert kwargs["security_protocol"] == "SASL_PLAINTEXT"
    assert kwargs["sasl_plain_username"] == "u"
    assert "s3cr3t-pw" not in repr(config)
    assert kwargs["sasl_plain_password"] == "s3cr3t-pw"


def test_uri_overrides_file_config() -> None:
    file_config = {"partition-num": 4, "compression": "gzip", "auto-create-topic": False}
    config = KafkaConfig.from_sink_params("h:1", "t", {"partition-num": "8"}, file_config)
    assert config.partition_num == 8
    assert config.compression == "gzip"
    assert config.auto_create_topic is False


def test_unknown_compression_falls_back_to_none() -> None:
    assert from_uri("kafka://h:1/t?compression=brotli").compression == "none"


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("partition-num=0", "partition-num"),
        ("partition-num=x", "partition-num"),
        ("replication-factor=-1", "replication-factor"),
        ("required-acks=2", "required-acks"),
        ("auto-create-topic=maybe", "auto-create-topic"),
        ("dial-timeout=soon", "dial-timeout"),
        ("sasl-mechanism=gssapi", "sasl-mechanism"),
        ("max-message-bytes=0", "max-message-bytes"),
    ],
)
def test_invalid_values_name_the_key(query: str, names: str) -> None:
    with pytest.raises(TisinkError, match=names):
        from_uri(f"kafka://h:1/t?{query}")


def test_missing_topic_or_hosts() -> None:
    with pytest.raises(KafkaConfigError, match="no topic"):
        from_uri("kafka://h:1/")
    with pytest.raises(KafkaConfigError, match="no broker"):
        from_uri("kafka:///t")


def test_tls_switches_on_with_certificate_files(tmp_path: object) -> None:
    config = from_uri("kafka://h:1/t?enable-tls=true&insecure-skip-verify=true")
    kwargs = config.client_kwargs()
    assert kwargs["security_protocol"] == "SSL"
    assert isinstance(kwargs["ssl_context"], ssl.SSLContext)
    assert kwargs["ssl_context"].verify_mode == ssl.CERT_NONE
    with pytest.raises(KafkaConfigError, match="TLS files"):
        from_uri("kafka://h:1/t?ca=/nonexistent/ca.pem").client_kwargs()


def test_producer_batches_never_exceed_the_message_limit() -> None:
    config = from_uri("kafka://h:1/t?compression=lz4&required-acks=-1")
    kwargs = config.producer_kwargs(max_message_bytes=4096)
    assert kwargs["max_batch_size"] == 4096
    assert kwargs["max_request_size"] == 4096
    assert kwargs["compression_type"] == "lz4"
    assert kwargs["acks"] == "all"
    assert kwargs["enable_idempotence"] is False


_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 500), st.sampled_from(sorted(_UNITS))), min_size=1))
def test_go_durations(parts: list[tuple[int, str]]) -> None:
    text = "".join(f"{n}{unit}" for n, unit in parts)
    config = from_uri(f"kafka://h:1/t?dial-timeout={text}")
    assert config.dial_timeout_s == pytest.approx(sum(n * _UNITS[u] for n, u in parts))


def test_required_acks_zero_is_refused_with_the_reason() -> None:
    """Without acknowledgements the checkpoint could pass data the broker lost."""
    with pytest.raises(TisinkError, match=r"required-acks.*0 is not supported.*use 1"):
        from_uri("kafka://h:1/t?required-acks=0")
