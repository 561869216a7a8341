"""A play's own verify on a stream with nothing in it: verified only when the play read and
delivered nothing either (the empty stream is then all it wrote); a play that delivered
messages and leaves an empty stream behind is not verified, whatever happened to them.

The engine is replaced by one that leaves an empty topic (a partition file, no record) and
reports what it delivered: every real play writes at least a watermark, so this is the only way
to reach an empty stream in process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tisink.feed.format.samples import DEMO_FEED
from tisink.play import run as play
from tisink.play.run import PlaySpec, run_play
from tisink.run.summary import RunSummary


def _engine_leaving_nothing(out: Path, delivered: RunSummary) -> Any:
    def play_inline(*_args: Any) -> RunSummary:
        (out / "cdc").mkdir(parents=True)
        (out / "cdc" / "partition-0.jsonl").write_bytes(b"")
        return delivered

    return play_inline


@pytest.mark.parametrize(
    ("delivered", "verified"),
    [
        (RunSummary(), True),
        (RunSummary(rows=5, messages={"DML": 5, "WATERMARK": 1}), False),
        (RunSummary(ddl=2), False),
    ],
    ids=["nothing-delivered", "rows-delivered", "ddl-read"],
)
def test_an_empty_stream_verifies_only_a_play_that_delivered_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, delivered: RunSummary, verified: bool
) -> None:
    out = tmp_path / "out"
    monkeypatch.setattr(play, "play_inline", _engine_leaving_nothing(out, delivered))
    uri = f"file://{out}?protocol=simple&topic=cdc"
    summary = run_play(PlaySpec(feed=DEMO_FEED, sink_uri=uri, engine="inline"))
    assert summary.verified is verified
