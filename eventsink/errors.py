"""Errors of event sinks."""

from tisink.core.errors import TisinkError


class EventSinkError(TisinkError):
    """An event sink failed; the message names the topic and partition or file."""


class SinkDeadError(EventSinkError):
    """The sink hit a fatal error earlier and accepts no more events."""


class RetriableError(EventSinkError):
    """Raised by a sink's write to say the failure is transient (a busy database, a timeout):
    ``BatchingSink`` retries the same batch with backoff instead of dying."""


class FileSinkError(EventSinkError):
    """A topic file cannot be written or read; the message names the file (and line)."""


class PathNameError(EventSinkError):
    """A name from the data (schema, table, topic) cannot be one file or directory name under
    the sink's root; the message names the table or topic."""

    refusal = True
