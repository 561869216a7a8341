"""Errors of fault injection."""

from tisink.core.errors import ConfigError
from tisink.eventsink.errors import EventSinkError


class FaultSpecError(ConfigError):
    """A ``--faults`` spec (or the changefeed's ``faults`` key) that cannot be read; the message
    names the item and the key."""


class FaultDeliveryError(EventSinkError):
    """Records a fault held back (``skew``, ``split-table``, ``ts-regression``) could not be
    delivered later; names the partition."""
