"""The fault spec: items, keys, defaults, and errors that name the item and key."""

from __future__ import annotations

import pytest

from tisink.eventsink.faults import FAULT_KINDS, parse_faults
from tisink.eventsink.faults.spec import DEFAULTS, parse_duration_ms
from tisink.sink import ChangefeedConfig
from tisink.sink.errors import ChangefeedConfigError


def test_items_keys_and_defaults() -> None:
    plan = parse_faults("restart-replay:every=3s,partition=2; bab ;producer-retry:p=0.5,seed=7")
    restart, bab, retry = plan.faults
    assert (restart.kind, restart.every_ms, restart.partition) == ("restart-replay", 3000, 2)
    assert (bab.kind, bab.nth, bab.defaulted) == ("bab", 500, True)
    assert not restart.defaulted
    assert (retry.p, retry.seed) == (0.5, 7)
    assert plan.of("skew") is None
    assert parse_faults("restart-replay:at=5,at=3").faults[0].at == (3, 5)


def test_every_kind_has_a_default_trigger() -> None:
    assert set(DEFAULTS) == set(FAULT_KINDS)
    for kind in FAULT_KINDS:
        spec = parse_faults(kind).faults[0]
        assert spec.nth or spec.by_ms, kind


def test_the_reordering_kinds_of_issue_47() -> None:
    split, regression = parse_faults("split-table; ts-regression:p=0.1,seed=2,topic=t").faults
    assert (split.kind, split.nth, split.defaulted) == ("split-table", 20, True)
    assert (regression.kind, regression.p, regression.seed, regression.topic) == (
        "ts-regression",
        0.1,
        2,
        "t",
    )
    assert not regression.defaulted and regression.nth == 0


def test_skew_defaults_to_partition_zero() -> None:
    skew = parse_faults("skew:by=2s").faults[0]
    assert (skew.by_ms, skew.partition) == (2000, 0)


@pytest.mark.parametrize(
    ("text", "ms"), [("5s", 5000), ("250ms", 250), ("2m", 120_000), ("1.5", 1500)]
)
def test_durations(text: str, ms: int) -> None:
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("restart:every=1s", "unknown fault 'restart'"),
        ("bab:every=soon", "fault 'bab': 'soon' is no duration"),
        ("producer-retry:p=2", "p=2 must be in (0, 1]"),
        ("duplicate-ddl:sometimes", "'sometimes' is no key=value"),
        ("skew:every=1s", "fault 'skew': 'every=1s' is no key=value"),
        ("bab;bab:every=1s", "fault 'bab' is given twice"),
        ("restart-replay:at=-1", "at=-1 must not be negative"),
        ("producer-retry:p=nan", "p=nan must be in (0, 1]"),
        ("producer-retry:p=often", "p=often is no number"),
        ("bab:nth=0", "nth=0: the first eligible message is nth=1"),
        ("split-table:by=1s", "fault 'split-table': 'by=1s' is no key=value"),
        ("ts-regression:nth=0", "fault 'ts-regression': nth=0: the first eligible"),
        ("ts-regression:partition=-1", "fault 'ts-regression': partition=-1 must not be"),
    ],
)
def test_errors_name_the_item_and_key(text: str, named: str) -> None:
    with pytest.raises(ValueError, match=named.replace("(", r"\(").replace(")", r"\)")):
        parse_faults(text)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("bab:every=1s,every=2s", "fault 'bab': key 'every' is given twice"),
        ("bab:p=0.1,P=0.2", "fault 'bab': key 'p' is given twice"),
        ("skew:by=1s,partition=0,partition=1", "fault 'skew': key 'partition' is given twice"),
        ("restart-replay:topic=a,topic=b", "key 'topic' is given twice"),
        ("duplicate-ddl:topic=", "fault 'duplicate-ddl': topic= is empty"),
        ("duplicate-ddl:topic= ,p=1", "topic= is empty"),
    ],
)
def test_what_could_never_fire_as_written_is_refused(text: str, named: str) -> None:
    """Issue 44 item 17: a key given twice (the last used to win) and an empty topic."""
    with pytest.raises(ValueError, match=named):
        parse_faults(text)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("bab:every=" + "9" * 400 + "h", "is longer than a TSO can span"),
        ("bab:every=300000000000h", "is longer than a TSO can span"),
        (f"bab:at={1 << 64}", "is past every TSO"),
    ],
)
def test_numbers_past_a_tso_are_refused(text: str, named: str) -> None:
    """A duration or ``at`` no TSO can reach (a 400-digit one raised OverflowError)."""
    with pytest.raises(ValueError, match=named):
        parse_faults(text)


def test_a_value_with_a_line_break_stays_on_one_line() -> None:
    with pytest.raises(ValueError) as caught:
        parse_faults("bab:seed=1\n2")
    assert str(caught.value) == "fault 'bab': seed='1\\n2' is not an integer"


def test_only_at_repeats() -> None:
    assert parse_faults("bab:at=9,at=4,at=7").faults[0].at == (4, 7, 9)
    assert parse_faults(f"bab:at={(1 << 64) - 1}").faults[0].at == ((1 << 64) - 1,)


def test_the_changefeed_toml_and_the_flag_set_it() -> None:
    config = ChangefeedConfig.from_toml('[sink]\nfaults = "duplicate-ddl"\n')
    assert config.faults is not None and config.faults.faults[0].kind == "duplicate-ddl"
    flagged = config.with_setting("faults", "bab:every=1s", "--faults")
    assert flagged.faults is not None and [f.kind for f in flagged.faults.faults] == ["bab"]
    with pytest.raises(ChangefeedConfigError, match="--faults: unknown fault 'nope'"):
        config.with_setting("faults", "nope", "--faults")
    with pytest.raises(ChangefeedConfigError, match=r"sink\.faults"):
        ChangefeedConfig.from_toml('[sink]\nfaults = "bab:every=x"\n')
