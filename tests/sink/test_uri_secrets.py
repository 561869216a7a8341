"""No secret is shown: a URI's userinfo password and credential-like parameters are masked
in every error, warning, log line and summary, whatever else is wrong with the URI."""

from __future__ import annotations

import logging
from pathlib import Path

import orjson
import pytest

from tisink.core.errors import TisinkError
from tisink.play.engines import redacted
from tisink.play.run import PlaySpec, run_play
from tisink.sink import SinkFactory
from tisink.sink.uri import MASK, is_secret_param, mask_uri, parse_sink_uri, scrub
from tisink.verify.run import verify

SECRET = "S3cret"


@pytest.mark.parametrize(
    "uri",
    [
        f"kafka://h:9092/t?sasl-password={SECRET}&sasl-password={SECRET}",
        f"kafka://h:99999/t?sasl-password={SECRET}",
        f"kafka://h:9092/t?sasl-password={SECRET}&bad query",
        f"kafka://h:9092/t?sasl-oauth-client-secret={SECRET}&x=1&x=2",
        f"mysql://root:{SECRET}@h:3306/?worker-count=1&worker-count=2",
    ],
)
def test_uri_errors_mask_secrets(uri: str) -> None:
    with pytest.raises(TisinkError) as caught:
        SinkFactory(uri)
    assert SECRET not in str(caught.value)
    assert "xxxxx" in str(caught.value)


def test_kafka_refuses_userinfo_and_masks_it() -> None:
    with pytest.raises(TisinkError, match="sasl-user and sasl-password") as caught:
        SinkFactory(f"kafka://alice:{SECRET}@h:9092/t")
    assert SECRET not in str(caught.value)


def test_a_misspelt_secret_key_is_masked_in_its_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        factory = SinkFactory(f"kafka://h:9092/t?sasl-passwrd={SECRET}&api-token={SECRET}")
    assert "did you mean sasl-password" in caplog.text
    assert SECRET not in caplog.text
    assert SECRET not in factory.uri.redacted()


def test_credential_like_names() -> None:
    for name in ("sasl-password", "sasl-passwrd", "key", "ssl-key", "client-secret", "token"):
        assert is_secret_param(name), name
    for name in ("protocol", "partition-num", "kafka-client-id", "keys-only", "topic"):
        assert not is_secret_param(name), name
    assert mask_uri(f"x://u:{SECRET}@h/p?token={SECRET}&a=b") == "x://u:xxxxx@h/p?token=xxxxx&a=b"
    assert parse_sink_uri(f"x://h/p?key={SECRET}").redacted() == "x://h/p?key=xxxxx"


def test_the_play_summary_and_its_log_never_hold_a_secret(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    uri = f"file://{tmp_path / 'out'}?protocol=simple&access-token={SECRET}"
    with caplog.at_level(logging.INFO):
        summary = run_play(PlaySpec(workload="demo", rows=50, sink_uri=uri, engine="inline"))
    text = orjson.dumps(summary.to_dict()).decode()
    assert SECRET not in text and "access-token=xxxxx" in text
    assert SECRET not in caplog.text


@pytest.mark.parametrize(
    ("uri", "shown"),
    [
        (f"mysql://u:pa/{SECRET}@h/db", "mysql://u:xxxxx@h/db"),
        (f"mysql://u:p@{SECRET}@h:1/?x=1", "mysql://u:xxxxx@h:1/?x=1"),
        (f"postgresql://u@h/db?password={SECRET}&a=b", "postgresql://u@h/db?password=xxxxx&a=b"),
        (f"consumer.db?password={SECRET}", "consumer.db?password=xxxxx"),
        (f"x://h/p?url=y://u:v@w&token={SECRET}", "x://h/p?url=y://u:xxxxx@w&token=xxxxx"),
    ],
)
def test_mask_uri_masks_whatever_the_uri_looks_like(uri: str, shown: str) -> None:
    """Issue 44 item 1: the one masking function, for URIs that parse and those that do not."""
    assert mask_uri(uri) == shown


def test_scrub_masks_each_secret_a_message_repeats() -> None:
    uri = f"postgresql://u:p%40{SECRET}@h/db?sslpassword={SECRET}2"
    message = f"auth failed for p@{SECRET} (sslpassword {SECRET}2)"
    assert scrub(message, uri) == f"auth failed for {MASK} (sslpassword {MASK})"


def test_a_failed_runs_summary_masks_a_uri_that_does_not_parse() -> None:
    assert redacted(f"kafka://h:99999/t?sasl-password={SECRET}") == (
        "kafka://h:99999/t?sasl-password=xxxxx"
    )


def test_verify_of_a_uri_it_refuses_masks_it() -> None:
    with pytest.raises(TisinkError) as caught:
        verify(f"kafka://u:{SECRET}@h:1/t?protocol=nope&sasl-password={SECRET}")
    assert SECRET not in str(caught.value)
