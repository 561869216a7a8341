"""Errors of the command-line floor: a play refused before it starts."""

from tisink.core.errors import TisinkError


class PlayRefused(TisinkError):
    """The play cannot start as asked (an empty feed, a file-sink folder holding an earlier
    run); nothing was written."""
