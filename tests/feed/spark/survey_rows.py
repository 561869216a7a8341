"""The survey of lines given as ``(file rank, split start, text)`` rows, without files."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import groupby
from typing import Any

import pyarrow as pa

from tisink.feed.spark.driver.survey import survey_split


def survey_rows(
    rows: Iterable[tuple[Any, int, str]], interval_ms: int
) -> Iterator[tuple[Any, ...]]:
    """``survey_split`` per split of the rows (consecutive rows of a split)."""
    for (file, block), lines in groupby(rows, key=lambda row: (row[0], row[1])):
        texts = pa.array([row[2] for row in lines], pa.string())
        yield from survey_split(file, block, [texts], interval_ms)
