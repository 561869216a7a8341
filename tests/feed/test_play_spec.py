"""The spec of a play: the values as the command took them, what the engines derive from
them, refusals before anything starts, and a spec that pickles whole (it may travel to
Spark executors)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from tisink.feed.play_spec import DEFAULT_WORKLOAD, PlaySpec
from tisink.feed.rate_profile import RateProfile

PROFILE = "ramp:100-300/2s,idle:1s"


def test_a_rate_given_as_text_is_a_steady_rate() -> None:
    spec = PlaySpec(workload="demo", rate="500", engine="inline")
    assert spec.pacing == spec.mean_rate == 500.0


def test_a_rate_given_as_stages_is_a_profile_and_its_mean_the_rate() -> None:
    spec = PlaySpec(workload="demo", rate=PROFILE, duration_s=3, engine="inline")
    assert isinstance(spec.pacing, RateProfile) and spec.pacing.text == PROFILE
    assert spec.mean_rate == pytest.approx(400 / 3)
    assert spec.workload_rows == 400


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"rate": "0"}, "--rate must be a positive number of rows/s, got 0.0"),
        ({"rate": -2}, "--rate must be a positive number of rows/s, got -2.0"),
        ({"rate": "fast"}, "rate stage 'fast'"),
        ({"rate": PROFILE, "engine": "spark"}, "--rate with stages paces the inline engine"),
        ({"rows": 0}, "--rows must be positive"),
        ({"feed": Path("f.jsonl"), "workload": "demo"}, "give --feed or --workload"),
        ({"watermark_interval_s": 0.0}, "--watermark-interval must be at least 0.001 s"),
        ({"faults": "skew:by=2s", "engine": "spark"}, "--faults skew needs --engine inline"),
    ],
)
def test_values_that_mean_nothing_are_refused(changes: dict, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        PlaySpec(**{"engine": "inline", **changes})


def test_what_the_engines_take_from_it() -> None:
    spec = PlaySpec(clock="feed", watermark_interval_s=0.25)
    assert spec.feed_clock and not PlaySpec().feed_clock
    assert spec.watermark_interval_ms == 250
    assert spec.scenario == DEFAULT_WORKLOAD and spec.mean_rate is None
    with pytest.raises(ValueError, match="sink URI"):
        _ = spec.target_uri  # the run resolves the embedded broker's before an engine plays
    assert PlaySpec(sink_uri="blackhole://").target_uri == "blackhole://"


def test_it_pickles_whole_with_what_it_parsed() -> None:
    spec = PlaySpec(feed=Path("feed.jsonl"), sink_uri="blackhole://", engine="inline", rate=PROFILE)
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec and again.pacing == spec.pacing
