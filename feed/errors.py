"""Errors of the feed layer: a bad feed record, and a play that had to stop."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.core.errors import TisinkError

if TYPE_CHECKING:
    from tisink.feed.stats import PlayStats


class FeedError(TisinkError):
    """A feed record is malformed or does not fit its table's schema.

    The message reads ``file:line: table S.T column C: reason`` with the parts that are known,
    so a user can open the file at the line and see which value is wrong.
    """

    def __init__(
        self,
        reason: str,
        *,
        file: str | None = None,
        line: int | None = None,
        table: str | None = None,
        column: str | None = None,
    ) -> None:
        self.reason = reason
        self.file = file
        self.line = line
        self.table = table
        self.column = column
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file is not None else ""
        subject = ""
        if self.table:
            subject = f"table {self.table} "
        if self.column:
            subject += f"column {self.column} "
        if subject:
            subject = subject.rstrip() + ": "
        return f"{where}{subject}{self.reason}"

    def at(self, file: str, line: int) -> FeedError:
        """The same error, located at ``file:line`` (the parser knows the place, the checks
        below it do not)."""
        return FeedError(self.reason, file=file, line=line, table=self.table, column=self.column)


class PlayError(TisinkError):
    """A play stopped on an error; ``last_checkpoint_ts`` is how far every table got.

    Every row with commitTs <= ``last_checkpoint_ts`` was acknowledged by the sink, so a
    consumer (or a re-run) can resume after it.
    """

    def __init__(self, cause: BaseException, last_checkpoint_ts: int, stats: PlayStats) -> None:
        self.cause = cause
        self.last_checkpoint_ts = last_checkpoint_ts
        self.stats = stats
        super().__init__(f"play stopped: {cause} (last checkpoint ts {last_checkpoint_ts})")
