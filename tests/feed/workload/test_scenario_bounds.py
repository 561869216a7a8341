"""Scenario values out of range, and workloads too big to generate, refused before any work."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tisink.feed.workload import ScenarioError, generate_feed, generate_records, parse_scenario
from tisink.feed.workload.specs import MAX_STORM_DDLS

TABLE = """
[[tables]]
name = "t"
{table}
columns = [{{ name = "id", type = "int" }}, {{ name = "v", type = "varchar(8)"{column} }}]
primary = ["id"]
"""


def _scenario(top: str = "", table: str = "", column: str = "", tail: str = "") -> str:
    return top + "\n" + TABLE.format(table=table, column=column) + tail


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_scenario("rows = -5"), "rows must be a whole number >= 1, got -5"),
        (_scenario("rows = 0"), "rows must be a whole number >= 1, got 0"),
        (_scenario("rows = 2.5"), "rows must be a whole number >= 1, got 2.5"),
        (_scenario('rows = "many"'), "rows must be a whole number >= 1, got 'many'"),
        (_scenario("duration_s = 0"), "duration_s must be a number > 0, got 0"),
        (_scenario("duration_s = -3.5"), "duration_s must be a number > 0, got -3.5"),
        (_scenario("duration_s = 0.0001"), "duration_s = 0.0001 at rate 1000/s gives no rows"),
        (_scenario("rate = nan"), "rate must be a number > 0, got nan"),
        (_scenario("null_ratio = 2.0"), "null_ratio must be a number in 0..1, got 2.0"),
        (
            _scenario(table="null_ratio = -0.1"),
            "table test.t: null_ratio must be a number in 0..1, got -0.1",
        ),
        (
            _scenario(column=", null_ratio = 1.5"),
            "table test.t column v: null_ratio must be a number in 0..1, got 1.5",
        ),
        (_scenario("zipf_s = nan"), "table test.t: zipf_s must be a number >= 0, got nan"),
        (_scenario(table='weight = "heavy"'), "weight must be a number >= 0, got 'heavy'"),
        (_scenario("ddl = 3"), "ddl must be a list, got 3"),
        (_scenario(table="indexes = 5"), "table test.t: indexes must be a list, got 5"),
        (
            _scenario(tail="[ddl_storm]\nper_minute = inf\n"),
            "ddl_storm per_minute must be a number > 0, got inf",
        ),
        (
            _scenario(tail="[ddl_storm]\nkinds = { truncate = true }\n"),
            "ddl_storm kind 'truncate' = True",
        ),
    ],
)
def test_a_value_out_of_range_is_refused_naming_the_key_and_the_range(
    text: str, message: str
) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, "s.toml")
    assert str(caught.value).startswith("s.toml: ")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_whole_numbers_written_as_floats_are_rows() -> None:
    assert parse_scenario(_scenario("rows = 1e6"), "s.toml").rows == 1_000_000


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            _scenario("rows = 1e20"),
            "s.toml: rows = 100000000000000000000 at rate 1000/s take 1e+17 s of commit time, "
            "to the year 3168875874; commit times must be before 2200-01-01T00:00:00.000Z",
        ),
        (
            _scenario('rows = 1e9\nrate_profile = "hold:10/1s,idle:10m"'),
            "at rate_profile 'hold:10/1s,idle:10m' take 6.01e+10 s of commit time",
        ),
        (
            _scenario("rows = 1e19\nrate = 1e19"),
            "rows = 10000000000000000000 need at least 2000000000000000000 transactions",
        ),
        (
            _scenario(tail="[ddl_storm]\nper_minute = 1e8\n"),
            "[ddl_storm] per_minute = 1e+08 over the 10 s of commit time of rows = 10000 makes "
            f"16,666,667 DDLs; at most {MAX_STORM_DDLS:,} (lower per_minute or rows)",
        ),
    ],
)
def test_a_workload_too_big_to_generate_is_refused_with_its_figure(text: str, message: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, "s.toml")
    assert message in str(caught.value)
    assert time.perf_counter() - started < 5


def test_a_storm_at_the_bound_is_accepted() -> None:
    per_minute = MAX_STORM_DDLS * 60 / 10  # 10 s of commit time
    text = _scenario(tail=f"[ddl_storm]\nper_minute = {per_minute}\n")
    assert parse_scenario(text, "s.toml").storm is not None


def test_rows_given_apart_from_the_scenario_are_checked_before_the_first_record() -> None:
    scenario = parse_scenario(_scenario("rows = 10"), "s.toml")
    records = generate_records(scenario, 0, 10**20)
    with pytest.raises(ScenarioError, match="rows = 100000000000000000000 at rate 1000/s"):
        next(iter(records))


def test_a_refused_generate_writes_no_file(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "f.jsonl"
    scenario = parse_scenario(_scenario("rows = 10"), "s.toml")
    with pytest.raises(ScenarioError, match="rows = 100000000000000000000"):
        generate_feed(scenario, 0, 10**20, out)
    assert not out.exists() and not out.parent.exists()
