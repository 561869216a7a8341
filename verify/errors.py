"""Errors of ``tisink verify``: the stream could not be read at all (a broken stream is not an
error but a report with violations)."""

from tisink.core.errors import TisinkError


class VerifyError(TisinkError):
    """Verify cannot run: a bad sink URI, a missing topic or folder, an unreachable broker."""
