"""Sink URIs of the database schemes: what each accepts, what it refuses, and that a password
is never shown."""

from __future__ import annotations

import pytest

from tests.db_servers import PASSWORD
from tisink.eventsink.sql import SQLSink
from tisink.sink import SinkFactory
from tisink.sink.errors import SinkURIError
from tisink.sink.uri import parse_sink_uri


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("sqlite://data/cdc.db", "no host"),
        ("sqlite:///", "names no database file"),
        ("sqlite:///x.db?batch-rows=0", "batch-rows must be an integer >= 1"),
        ("sqlite:///x.db?synchronous=sometimes", "synchronous must be one of"),
        ("mysql://127.0.0.1:3306/", "names no user"),
        ("mysql://u:secret@127.0.0.1:3306/shop", "names no database"),
        ("mysql://u:secret@h1:3306,h2:3306/", "must name one host"),
        ("mysql://u:secret@127.0.0.1:3306/?worker-count=0", "worker-count must be an integer"),
        ("postgresql://u:secret@127.0.0.1/a/b", "names one database"),
        ("postgresql://u:secret@127.0.0.1/db?batch-rows=x", "batch-rows must be an integer"),
    ],
)
async def test_bad_sink_uris_are_refused_without_their_password(tmp_path, monkeypatch, uri,
                                                                message):  # fmt: skip
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SinkURIError, match=message) as caught:
        await SinkFactory(uri).create_event_sink()
    assert "secret" not in str(caught.value)


def test_redacted_uris_hide_the_password():
    shown = parse_sink_uri("mysql://root:s3cr%40t@127.0.0.1:3306/?batch-rows=9").redacted()
    assert shown == "mysql://root:xxxxx@127.0.0.1:3306/?batch-rows=9"
    assert parse_sink_uri("postgresql://u@h/db").redacted() == "postgresql://u@h/db"


@pytest.mark.parametrize("fixture", ["fresh_mariadb", "fresh_postgresql"])
async def test_one_sink_serves_both_roles_and_logs_no_password(request, fixture, caplog):
    url = request.getfixturevalue(fixture)
    factory = SinkFactory(url + ("?" if "?" not in url else "&") + "batch-rows=100")
    sink = await factory.create_event_sink()
    assert isinstance(sink, SQLSink) and sink is await factory.create_ddl_sink()
    await sink.write_checkpoint_ts(5, [])
    await sink.close()
    assert PASSWORD not in caplog.text and PASSWORD not in sink.dialect.describe()
