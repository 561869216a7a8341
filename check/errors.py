"""Errors of ``tisink check``: a database that cannot be opened or read (a database that
differs is no error but a report with differences)."""

from tisink.core.errors import TisinkError


class CheckError(TisinkError):
    """Check cannot run: a bad URL, a database that cannot be reached or read, a feed that
    cannot be applied. The message names the URL with its secrets masked."""


class NotUTF8Error(CheckError):
    """A SQLite TEXT value is not UTF-8: the table is read again with such values as
    ``normalise.NotUTF8``, which compare as differences."""
