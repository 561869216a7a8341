"""The ``sqlite`` scheme's provider, registered under the ``tisink.sinks`` entry point.

Paths follow SQLAlchemy's spelling: ``sqlite:///demo.db`` is ``demo.db`` relative to the
working directory, ``sqlite:////var/lib/cdc.db`` is absolute. Parameters:

* ``batch-rows``: most rows per SQLite transaction (default 4096);
* ``synchronous``: SQLite's ``PRAGMA synchronous`` (off, normal, full, extra; default normal,
  which with WAL keeps the database consistent and the checkpoint with it);
* ``busy-timeout-ms``: how long a write waits for another connection's lock before it fails
  and is retried (default 5000).

The event sink and the DDL sink of one database are the same ``SQLiteSink``, so rows, DDLs and
checkpoints share one connection and one thread.
"""

from __future__ import annotations

from pathlib import Path

from tisink.plugin import ChangefeedConfig, Clock, SinkURI, SinkURIError
from tisink_sqlite.sink import DEFAULT_BATCH_ROWS, SYNCHRONOUS_MODES, SQLiteSink

DEFAULT_BUSY_TIMEOUT_MS = 5000


def database_path(uri: SinkURI) -> Path:
    """The database file a ``sqlite://`` URI names (SinkURIError if it names none)."""
    if uri.hosts:
        raise SinkURIError(
            f"sink URI {uri.redacted()}: sqlite URIs have no host; write "
            f"sqlite:///{uri.hosts[0]}{uri.path} for a relative path"
        )
    path = uri.path.removeprefix("/")
    if not path or path.endswith("/"):
        raise SinkURIError(
            f"sink URI {uri.redacted()} names no database file "
            "(sqlite:///relative.db or sqlite:////absolute/path.db)"
        )
    return Path(path)


def _int_param(uri: SinkURI, name: str, default: int, minimum: int) -> int:
    text = uri.param(name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        raise SinkURIError(
            f"sink URI {uri.redacted()}: {name} must be an integer >= {minimum}, got {text!r}"
        )
    return value


class SQLiteSinkProvider:
    """Builds one opened ``SQLiteSink`` per database file and hands it out for both roles."""

    uri_params = ("batch-rows", "synchronous", "busy-timeout-ms")
    default_protocol = None

    def __init__(self) -> None:
        self._sinks: dict[Path, SQLiteSink] = {}

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> SQLiteSink:
        return await self._sink(uri)

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> SQLiteSink:
        return await self._sink(uri)

    async def _sink(self, uri: SinkURI) -> SQLiteSink:
        path = database_path(uri)
        key = path.resolve()
        sink = self._sinks.get(key)
        if sink is not None and not sink.closed:
            return sink
        synchronous = uri.param("synchronous", "normal") or ""
        if synchronous.lower() not in SYNCHRONOUS_MODES:
            raise SinkURIError(
                f"sink URI {uri.redacted()}: synchronous must be one of "
                f"{', '.join(SYNCHRONOUS_MODES)}, got {synchronous!r}"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        sink = SQLiteSink(
            path,
            synchronous=synchronous,
            busy_timeout_s=_int_param(uri, "busy-timeout-ms", DEFAULT_BUSY_TIMEOUT_MS, 0) / 1000,
            max_batch_rows=_int_param(uri, "batch-rows", DEFAULT_BATCH_ROWS, 1),
        )
        await sink.open()
        self._sinks[key] = sink
        return sink
