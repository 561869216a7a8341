"""``tisink play`` into ``log://`` with every protocol of the registry and each of its encoding
formats: the log sink is the README's worked example, so no protocol may crash it (a protocol
that sends no message for a DDL or has no WATERMARK once did)."""

from __future__ import annotations

import pytest

from tests.codec.required_options import uri_suffix
from tisink.codec.registry import get_protocol, protocols
from tisink.feed.format.samples import DEMO_FEED
from tisink.play.run import PlaySpec, run_play

CASES = [
    (name, encoding) for name, spec in protocols().items() for encoding in spec.encoding_formats
]


@pytest.mark.parametrize(("protocol", "encoding"), CASES)
def test_log_sink_plays_every_protocol(protocol: str, encoding: str) -> None:
    uri = f"log://?protocol={protocol}&encoding-format={encoding}"
    uri += uri_suffix(get_protocol(protocol))
    summary = run_play(PlaySpec(feed=DEMO_FEED, sink_uri=uri, engine="inline"))
    assert summary.error is None
    assert summary.rows > 0 and summary.ddl > 0
    assert summary.checkpoint_ts > 0
