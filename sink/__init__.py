"""tisink's sink layer: sink URIs, changefeed config, the scheme registry and the SinkFactory."""

from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import ChangefeedConfigError, SinkError, SinkURIError, UnknownSchemeError
from tisink.sink.factory import SinkFactory
from tisink.sink.registry import available_schemes
from tisink.sink.uri import SinkURI, parse_sink_uri

__all__ = [
    "ChangefeedConfig",
    "ChangefeedConfigError",
    "SinkError",
    "SinkFactory",
    "SinkURI",
    "SinkURIError",
    "UnknownSchemeError",
    "available_schemes",
    "parse_sink_uri",
]
