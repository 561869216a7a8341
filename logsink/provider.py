"""LogProvider: what makes ``log://`` a scheme, as a plugin's provider does.

A provider turns the parsed sink URI and the changefeed config into the sinks; this one builds
an encoder only when a protocol is configured (the scheme has no default), so a bare
``log://`` logs rows without encoding them.
"""

from __future__ import annotations

from tisink.logsink.ddl import LogDDLSink
from tisink.logsink.sink import LogSink
from tisink.plugin import ChangefeedConfig, Clock, SinkURI
from tisink.plugin.codec import RowEventEncoder, new_encoder


def _encoder(config: ChangefeedConfig, clock: Clock) -> RowEventEncoder | None:
    return new_encoder(config.encoder, clock) if config.protocol else None


class LogProvider:
    """``log://``: one log line per row, DDL and checkpoint; encodes only if a protocol is set."""

    uri_params: tuple[str, ...] = ()
    default_protocol = None

    async def create_event_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> LogSink:
        return LogSink(_encoder(config, clock))

    async def create_ddl_sink(
        self, uri: SinkURI, config: ChangefeedConfig, clock: Clock
    ) -> LogDDLSink:
        return LogDDLSink(_encoder(config, clock))
