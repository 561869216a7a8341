"""What ``tisink check`` was asked to compare, checked before any database is opened."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tisink.check.expected import ExpectedSource
from tisink.check.naming import Naming, parse_pairs

DEFAULT_CHUNK_ROWS = 20_000


@dataclass(frozen=True)
class CheckOptions:
    expected: ExpectedSource
    actual: str
    naming: Naming = field(default_factory=Naming)
    max_differences: int = 20
    chunk_rows: int = DEFAULT_CHUNK_ROWS
    """Rows per server round trip and per in-memory sort run."""
    strict_column_order: bool = False
    """Another column order is a difference, not a note (columns match by name)."""

    def __post_init__(self) -> None:
        if self.max_differences < 0:
            raise ValueError(f"--max-differences must be 0 or more, got {self.max_differences}")
        if self.chunk_rows <= 0:
            raise ValueError(f"chunk rows must be positive, got {self.chunk_rows}")


def expected_source(
    expected: str | None, workload: str | None, seed: int, rows: int | None
) -> ExpectedSource:
    """``--expected`` (a URL, or else a feed path) or ``--workload``: exactly one of them."""
    if (expected is None) == (workload is None):
        raise ValueError("give --expected (a database URL or a feed file) or --workload")
    if rows is not None and rows <= 0:
        raise ValueError(f"--rows must be positive, got {rows}")
    if expected is None:
        return ExpectedSource(workload=workload, seed=seed, rows=rows)
    if rows is not None:
        raise ValueError("--rows sizes a --workload; a feed or database holds its own rows")
    if "://" in expected:
        return ExpectedSource(url=expected)
    return ExpectedSource(feed=Path(expected))


def command_options(
    *,
    expected: str | None,
    workload: str | None,
    seed: int,
    rows: int | None,
    actual: str,
    tables: Sequence[str],
    ignore_tables: Sequence[str],
    schema_map: Sequence[str],
    table_map: Sequence[str],
    max_differences: int,
    strict_column_order: bool = False,
) -> CheckOptions:
    """The options of the command line; ValueError or CheckError say what is wrong."""
    naming = Naming(
        tuple(tables),
        tuple(ignore_tables),
        parse_pairs(schema_map, "--schema-map"),
        parse_pairs(table_map, "--table-map"),
    )
    source = expected_source(expected, workload, seed, rows)
    return CheckOptions(
        source, actual, naming, max_differences, strict_column_order=strict_column_order
    )
