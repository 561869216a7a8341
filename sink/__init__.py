"""tisink's sink layer: sink URIs, changefeed config, the scheme registry and the SinkFactory."""

from sink.config import ChangefeedConfig
from sink.errors import ChangefeedConfigError, SinkError, SinkURIError, UnknownSchemeError
from sink.factory import SinkFactory
from sink.registry import available_schemes
from sink.uri import SinkURI, parse_sink_uri

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
