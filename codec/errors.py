"""Errors raised while encoding."""

from tisink.core.errors import TisinkError


class CodecError(TisinkError):
    """An event cannot be encoded; the message names the table and column."""


class MessageTooLargeError(CodecError):
    """An encoded message exceeds ``max-message-bytes`` and no fallback applies."""


class MessageDecodeError(CodecError):
    """A record is not a message of the protocol it is read as; verify reports it."""
