"""The expected side made from a change feed: the feed (or a workload generated into one)
is played with the inline engine into ``sqlite:///<tmp>/expected.db``, a temporary SQLite
database that lives as long as the context, and the feed's last schemas give the MySQL types."""

from __future__ import annotations

import contextlib
import logging
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tisink.check.errors import CheckError
from tisink.check.schemas import TableTypes, feed_types
from tisink.core.errors import TisinkError
from tisink.feed.workload import generate_feed
from tisink.play.run import PlaySpec, run_play

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExpectedSource:
    """Where the expected state comes from: a database URL, a feed, or a workload."""

    url: str | None = None
    feed: Path | None = None
    workload: str | None = None
    seed: int = 0
    rows: int | None = None

    @property
    def label(self) -> str:
        if self.url is not None:
            return self.url
        if self.feed is not None:
            return f"feed {self.feed}"
        return f"workload {self.workload} (seed {self.seed}, rows {self.rows or 'default'})"


@dataclass(frozen=True)
class Expected:
    url: str
    types: dict[str, TableTypes]


@contextlib.contextmanager
def applied_feed(source: ExpectedSource) -> Iterator[Expected]:
    """The database that ``source`` names, or a feed applied to a temporary one."""
    if source.url is not None:
        yield Expected(source.url, {})
        return
    with tempfile.TemporaryDirectory(prefix="tisink-check-") as tmp:
        feed = source.feed
        try:
            if feed is None:
                feed = Path(tmp) / "workload.jsonl"
                generate_feed(source.workload or "", source.seed, source.rows, feed)
            url = f"sqlite:///{Path(tmp) / 'expected.db'}"
            options = PlaySpec(feed=feed, sink_uri=url, engine="inline", verify_after=False)
            summary = run_play(options)
            types = feed_types(feed)
        except (TisinkError, ValueError, OSError) as err:
            raise CheckError(f"cannot apply {source.label}: {err}") from err
        log.info("applied %s: %d rows, %d DDLs", source.label, summary.rows, summary.ddl)
        yield Expected(url, types)
