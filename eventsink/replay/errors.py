"""Errors of record and replay."""

from tisink.eventsink.errors import EventSinkError


class ReplayError(EventSinkError):
    """A source cannot be replayed into the target as asked: the message names the partition
    and offset or the option."""
