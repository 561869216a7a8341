"""The two sources of MySQL types agree: the last schemas of a feed (``feed_types``) and the
``tidb_cdc.columns`` the SQL applier writes when it plays that feed (``meta_types``)."""

from __future__ import annotations

import pytest

from tisink.check.database import Database
from tisink.check.schemas import feed_types, meta_types
from tisink.check.urls import DatabaseURL
from tisink.feed.workload import generate_feed
from tisink.model.mysqltypes import TypeFamily
from tisink.play.run import PlaySpec, run_play

SIGNED = (
    TypeFamily.INT,
    TypeFamily.BIGINT,
    TypeFamily.DECIMAL,
    TypeFamily.FLOAT,
    TypeFamily.DOUBLE,
)


@pytest.mark.parametrize("workload", ["demo", "all-types"])
def test_feed_types_match_the_appliers_meta_table(tmp_path, workload):
    feed = tmp_path / "feed.jsonl"
    generate_feed(workload, 11, 800, feed)
    url = f"sqlite:///{tmp_path / 'applied.db'}"
    run_play(PlaySpec(feed=feed, sink_uri=url, engine="inline", verify_after=False))
    with Database(DatabaseURL.parse(url)) as db:
        from_meta = meta_types(db)
    from_feed = feed_types(feed)
    assert from_meta.keys() == from_feed.keys()

    def essentials(types):
        """What normalising needs; UNSIGNED only where SHOW CREATE TABLE spells it (TiDB
        flags YEAR and BIT unsigned too)."""
        return {
            name: (
                table.key,
                [
                    (c, t.family, t.scale, t.elements, t.unsigned and t.family in SIGNED)
                    for c, t in table.columns.items()
                ],
            )
            for name, table in types.items()
        }

    assert essentials(from_meta) == essentials(from_feed)
