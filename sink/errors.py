"""Errors of the sink layer: sink URIs, changefeed configuration, sink schemes."""

from tisink.core.errors import TisinkError


class SinkError(TisinkError):
    """Building a sink failed; the message names the URI part, key or scheme at fault."""


class SinkURIError(SinkError):
    """A sink URI is malformed, or one of its parameters has a bad value."""


class ChangefeedConfigError(SinkError):
    """A changefeed TOML file or value is invalid; names the file and key."""


class UnknownSchemeError(SinkError):
    """No built-in sink or plugin provides the URI's scheme; lists the known ones."""
