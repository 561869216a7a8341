"""The run package's errors: programs tisink starts for its users (brokers, registries, jars)."""

from __future__ import annotations

from tisink.core.errors import TisinkError


class RunError(TisinkError):
    """A program tisink starts, or what it needs, is not there; the message is one line."""


class SchemaRegistryError(RunError):
    """The embedded schema registry could not be built or started; the message is one line."""
