"""The database schemes ``sqlite``, ``mysql`` and ``postgresql``: the SQL applier
(``eventsink/sql``) behind sink URIs.

* ``sqlite:///relative.db``, ``sqlite:////abs/path.db`` (SQLAlchemy's spelling): parameters
  ``synchronous`` (``PRAGMA synchronous``: off, normal, full, extra; default normal, which with
  WAL keeps the database and its checkpoint consistent) and ``busy-timeout-ms`` (how long a
  write waits for another connection's lock before it fails and is retried; default 5000);
* ``mysql://user:password@host:port/`` as TiCDC's MySQL sink writes it (the path names no
  database: TiDB schemas are databases);
* ``postgresql://user:password@host:port/dbname``.

Every scheme takes ``batch-rows`` (most rows per database transaction, default 4096); the
servers take ``worker-count`` too (TiCDC's name: connections writing different tables at once,
default 2). The event sink and the DDL sink of one database are the same ``SQLSink``.
Key-changing UPDATEs reach it whole, as TiCDC's MySQL sink receives them. Passwords appear in no
message: URIs are shown ``redacted()``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tisink.core.clock import Clock
from tisink.eventsink.sql import DEFAULT_BATCH_ROWS, Dialect, SQLiteDialect, SQLSink
from tisink.eventsink.sql.sqlite import SYNCHRONOUS_MODES
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkURIError
from tisink.sink.uri import SinkURI

DEFAULT_BUSY_TIMEOUT_MS = 5000
DEFAULT_WORKER_COUNT = 2
"""Connections per server database: one builds statements while the server runs another's."""
MYSQL_PORT, POSTGRESQL_PORT = 3306, 5432


def int_param(uri: SinkURI, name: str, default: int, minimum: int) -> int:
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


class _Server:
    """Host, port and credentials of a database server URI."""

    def __init__(self, uri: SinkURI, default_port: int) -> None:
        parts = urlsplit(uri.raw)
        if len(uri.hosts) != 1:
            raise SinkURIError(f"sink URI {uri.redacted()} must name one host[:port]")
        try:
            port = parts.port
        except ValueError as err:
            raise SinkURIError(f"sink URI {uri.redacted()}: bad port") from err
        if not parts.username:
            raise SinkURIError(f"sink URI {uri.redacted()} names no user (user:password@host)")
        self.host = parts.hostname or ""
        self.port = port or default_port
        self.user = unquote(parts.username)
        self.password = unquote(parts.password or "")


class SQLProvider(ABC):
    """Builds one opened ``SQLSink`` per database and hands it out for both roles."""

    uri_params: tuple[str, ...] = ("batch-rows", "worker-count")
    default_protocol = None
    default_workers = DEFAULT_WORKER_COUNT

    def __init__(self) -> None:
        self._sinks: dict[object, SQLSink] = {}

    def splits_key_updates(self) -> bool:
        return False

    @abstractmethod
    def target(self, uri: SinkURI) -> tuple[object, Dialect]:
        """The key that identifies the database, and a dialect for it."""

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> SQLSink:
        return await self._sink(uri)

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> SQLSink:
        return await self._sink(uri)

    async def _sink(self, uri: SinkURI) -> SQLSink:
        key, dialect = self.target(uri)
        sink = self._sinks.get(key)
        if sink is not None and not sink.closed:
            return sink
        batch_rows = int_param(uri, "batch-rows", DEFAULT_BATCH_ROWS, 1)
        workers = self.default_workers
        if "worker-count" in self.uri_params:
            workers = int_param(uri, "worker-count", workers, 1)
        sink = SQLSink(dialect, max_batch_rows=batch_rows, connections=workers)
        await sink.open()
        self._sinks[key] = sink
        return sink


class SQLiteProvider(SQLProvider):
    uri_params = ("batch-rows", "synchronous", "busy-timeout-ms")
    default_workers = 1  # one writer per file: a second connection would only wait for it

    def target(self, uri: SinkURI) -> tuple[object, Dialect]:
        path = database_path(uri)
        synchronous = uri.param("synchronous", "normal") or ""
        if synchronous.lower() not in SYNCHRONOUS_MODES:
            raise SinkURIError(
                f"sink URI {uri.redacted()}: synchronous must be one of "
                f"{', '.join(SYNCHRONOUS_MODES)}, got {synchronous!r}"
            )
        timeout_s = int_param(uri, "busy-timeout-ms", DEFAULT_BUSY_TIMEOUT_MS, 0) / 1000
        path.parent.mkdir(parents=True, exist_ok=True)
        dialect = SQLiteDialect(path, synchronous=synchronous, busy_timeout_s=timeout_s)
        return path.resolve(), dialect


class MySQLProvider(SQLProvider):
    def target(self, uri: SinkURI) -> tuple[object, Dialect]:
        from tisink.eventsink.sql.mysql import MySQLDialect

        server = _Server(uri, MYSQL_PORT)
        if uri.path.strip("/"):
            raise SinkURIError(
                f"sink URI {uri.redacted()}: a mysql sink URI names no database (TiDB schemas "
                "are databases): mysql://user:password@host:port/"
            )
        dialect = MySQLDialect(server.host, server.port, server.user, server.password)
        return (server.host, server.port, server.user), dialect


class PostgreSQLProvider(SQLProvider):
    def target(self, uri: SinkURI) -> tuple[object, Dialect]:
        from tisink.eventsink.sql.postgresql import PostgreSQLDialect

        server = _Server(uri, POSTGRESQL_PORT)
        dbname = uri.path.strip("/")
        if "/" in dbname:
            raise SinkURIError(f"sink URI {uri.redacted()}: the path names one database")
        dialect = PostgreSQLDialect(server.host, server.port, server.user, server.password, dbname)
        return (server.host, server.port, server.user, dbname), dialect
