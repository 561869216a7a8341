"""The large-message pieces the simple, open and canal-json encoders share."""

from __future__ import annotations

import base64
import logging

import orjson
import pytest

from tisink.codec.config import EncoderConfig
from tisink.codec.errors import MessageTooLargeError
from tisink.codec.large_message import LargeMessages, claim_check_prefix
from tisink.core.errors import ConfigError
from tisink.model import ColumnInfo, RowChangedEvent
from tisink.model.table import make_table

ROW = RowChangedEvent(
    start_ts=1,
    commit_ts=2,
    table=make_table("shop", "items", 7, 1, [ColumnInfo("id", "int")]),
    after={"id": 1},
)


def _config(option: str = "claim-check", **kwargs: object) -> EncoderConfig:
    if option == "claim-check":
        kwargs.setdefault("claim_check_storage_uri", "file:///tmp/claims/")
    return EncoderConfig(
        protocol="simple", max_message_bytes=100, large_message_handle_option=option, **kwargs
    )


def test_claim_check_prefix() -> None:
    assert claim_check_prefix(_config()) == "file:///tmp/claims/"
    assert claim_check_prefix(_config(claim_check_storage_uri="file:///c")) == "file:///c/"
    assert claim_check_prefix(_config("handle-key-only")) == ""
    with pytest.raises(ConfigError, match=r"s3://b.*not supported; use one of file://"):
        claim_check_prefix(_config(claim_check_storage_uri="s3://b"))


def test_locations_and_payloads() -> None:
    large = LargeMessages(_config(), uuid_factory=lambda: "u1")
    assert large.claim_check and large.location() == "file:///tmp/claims/u1.json"
    assert orjson.loads(large.payload(b"v")) == {"key": None, "value": "dg=="}
    framed = orjson.loads(large.payload(b"v", b"k"))
    assert base64.b64decode(framed["key"]) == b"k"
    assert LargeMessages(_config(claim_check_raw_value=True)).payload(b"v", b"k") == b"v"


def test_compression_follows_the_config() -> None:
    assert not LargeMessages(_config()).compressing
    large = LargeMessages(_config(large_message_handle_compression="lz4"))
    assert large.compressing and large.compress(b"x" * 100) != b"x" * 100


def test_the_errors_and_the_log_line(caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(MessageTooLargeError, match=r"message of 150 bytes exceeds .* 100 "):
        LargeMessages(_config("none")).refuse_if_none(ROW, 150)
    large = LargeMessages(_config("handle-key-only"))
    large.refuse_if_none(ROW, 150)
    with pytest.raises(MessageTooLargeError, match="even the handle-key-only message of 101"):
        large.sent_reduced(ROW, 150, 101)
    with caplog.at_level(logging.WARNING):
        large.sent_reduced(ROW, 150, 100, "event")
    assert "150-byte event exceeds max-message-bytes 100, sent as handle-key-only (100" in (
        caplog.text
    )
