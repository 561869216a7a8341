"""The seeded workload generator: scenarios (TOML) to change feeds (feed/workload/README.md).

A scenario names tables with columns of any mysqlType, the insert/update/delete mix,
transaction sizes, key distributions, value sizes, oversized rows and a DDL schedule; a seed
makes the feed reproducible byte for byte, also when tables are generated in parallel.
"""

from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.generator import (
    generate_feed,
    generate_records,
    generate_selected_records,
    generate_table_records,
    merge_partitions,
    record_line,
)
from tisink.feed.workload.loader import builtin_scenarios, load_scenario
from tisink.feed.workload.scenario import Scenario, parse_scenario
from tisink.feed.workload.selection import KeepRow, RowSelection, SkippedRow

__all__ = [
    "KeepRow",
    "RowSelection",
    "Scenario",
    "ScenarioError",
    "SkippedRow",
    "builtin_scenarios",
    "generate_feed",
    "generate_records",
    "generate_selected_records",
    "generate_table_records",
    "load_scenario",
    "merge_partitions",
    "parse_scenario",
    "record_line",
]
