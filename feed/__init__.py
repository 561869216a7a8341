"""Change-feed sources (feed files) and the player that drives table sinks (DESIGN.md)."""

from feed.errors import FeedError, PlayError
from feed.inline import play_inline, play_with_factory
from feed.player import Player
from feed.reader import read_feed
from feed.records import FeedDDL, FeedRecord, FeedResolved, FeedRow, Source
from feed.stats import PlayStats
from feed.writer import FeedWriter

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
