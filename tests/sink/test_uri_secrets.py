"""No secret is shown: a URI's userinfo password and credential-like parameters are masked
in every error, warning, log line and summary, whatever else is wrong with the URI."""

from __future__ import annotations

import logging
from pathlib import Path

import orjson
import pytest

from tisink.core.errors import TisinkError
from tisink.play import PlayOptions, run_play
from tisink.sink import SinkFactory
from tisink.sink.uri import is_secret_param, mask_uri, parse_sink_uri

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
        summary = run_play(PlayOptions(workload="demo", rows=50, sink_uri=uri, engine="inline"))
    text = orjson.dumps(summary.to_dict()).decode()
    assert SECRET not in text and "access-token=xxxxx" in text
    assert SECRET not in caplog.text
