"""Sink URI parsing: TiCDC's shapes, the file scheme's paths, and clear errors."""

from __future__ import annotations

import pytest

from tisink.sink.errors import SinkURIError
from tisink.sink.uri import parse_sink_uri, scrub


def test_kafka_uri_with_hosts_topic_and_params():
    uri = parse_sink_uri(
        "kafka://k1:9092,k2:9093/cdc-events?protocol=simple&partition-num=6&max-message-bytes=67108864"
    )
    assert uri.scheme == "kafka"
    assert uri.hosts == ("k1:9092", "k2:9093")
    assert uri.topic == "cdc-events"
    assert uri.params == {
        "protocol": "simple",
        "partition-num": "6",
        "max-message-bytes": "67108864",
    }


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        ("file:///tmp/out?protocol=simple", "/tmp/out"),
        ("file://out/dir", "out/dir"),
        ("file://./out", "./out"),
        ("file:///tmp/with%20space", "/tmp/with space"),
    ],
)
def test_file_uri_paths(raw, path):
    uri = parse_sink_uri(raw)
    assert (uri.scheme, uri.path, uri.hosts) == ("file", path, ())


def test_file_topic_is_a_parameter_and_scheme_is_lowercased():
    uri = parse_sink_uri("FILE:///d?topic=orders")
    assert (uri.scheme, uri.topic) == ("file", "orders")


def test_ipv6_host_and_no_path():
    uri = parse_sink_uri("kafka://[::1]:9092")
    assert uri.hosts == ("[::1]:9092",) and uri.topic == ""
    assert parse_sink_uri("blackhole://").hosts == ()


def test_secrets_are_masked_for_logs():
    uri = parse_sink_uri("kafka://h:1/t?sasl-user=u&sasl-password=hunter2")
    assert "hunter2" not in uri.redacted() and "sasl-user=u" in uri.redacted()
    assert parse_sink_uri("log://").redacted() == "log://"


@pytest.mark.parametrize(
    "registry", ["http://reg:s3cr%2Ft@h:8081", "http%3A%2F%2Freg%3As3cr%252Ft%40h%3A8081"]
)
def test_a_password_inside_a_url_parameter_is_masked(registry: str) -> None:
    """``schema-registry=http://user:password@host`` (TiCDC masks it too), raw or encoded."""
    raw = f"kafka://h:1/t?protocol=avro&schema-registry={registry}&partition-num=3"
    shown = parse_sink_uri(raw).redacted()
    assert "s3cr" not in shown and "reg:" in shown and shown.endswith("&partition-num=3")
    assert "s3cr" not in scrub("registry said no to reg:s3cr/t and s3cr%2Ft", raw)
    plain = "kafka://h:1/t?schema-registry=http://h:8081"
    assert parse_sink_uri(plain).redacted() == plain


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "non-empty"),
        ("kafka", "no scheme"),
        ("/tmp/out", "no scheme"),
        ("kafka://h:1/t ?a=b", "whitespace"),
        ("1kafka://h:1/t", "invalid scheme"),
        ("kafka://h:99999/t", "out of range"),
        ("kafka://h:x1/t", "bad host"),
        ("kafka://h:1/t?protocol=simple&protocol=avro", "'protocol' is given more than once"),
        ("kafka://h:1/t?novalue", "malformed query"),
        ("file://", "names no directory"),
        ("kafka://[::1/t", "malformed"),
    ],
)
def test_malformed_uris(raw, reason):
    with pytest.raises(SinkURIError, match=reason):
        parse_sink_uri(raw)
