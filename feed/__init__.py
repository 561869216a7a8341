"""Change-feed sources (feed files) and the player that drives table sinks (DESIGN.md)."""

from tisink.feed.errors import FeedError, PlayError
from tisink.feed.format.reader import read_feed
from tisink.feed.format.records import FeedDDL, FeedRecord, FeedResolved, FeedRow, Source
from tisink.feed.format.writer import FeedWriter
from tisink.feed.inline import play_inline, play_with_factory
from tisink.feed.player import Player
from tisink.feed.stats import PlayStats

__all__ = [
    "FeedDDL",
    "FeedError",
    "FeedRecord",
    "FeedResolved",
    "FeedRow",
    "FeedWriter",
    "PlayError",
    "PlayStats",
    "Player",
    "Source",
    "play_inline",
    "play_with_factory",
    "read_feed",
]
