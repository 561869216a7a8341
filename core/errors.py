"""The root exception of tisink, and the configuration error every layer raises."""


class TisinkError(Exception):
    """Root of every error tisink raises on purpose; catch this at the edges."""


class ConfigError(TisinkError):
    """A setting is unknown or out of range; the message names where it was read and the key."""
