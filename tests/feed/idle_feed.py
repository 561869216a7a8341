"""A feed with a day of silence right after a DDL: the watermark policy gives the silence one
point, not one per interval (README "Watermarks")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tisink.feed.watermarks import points_of_intervals
from tisink.model.tso import LOGICAL_BITS

USER_FEED = Path(__file__).parent / "data" / "simple_user.jsonl"
SECOND = 1000 << LOGICAL_BITS
DAY = 86_400 * SECOND


def idle_day_records() -> list[dict[str, Any]]:
    """CREATE, a row, an ALTER a second later, a day of nothing, then two rows."""
    lines = [json.loads(line) for line in USER_FEED.read_text().splitlines() if line.strip()]
    create, insert, alter, late_insert = lines[0], lines[1], lines[5], lines[6]
    start = create["commitTs"]
    insert = {**insert, "commitTs": start + SECOND, "startTs": start + SECOND - 5}
    alter = {**alter, "commitTs": start + 2 * SECOND, "startTs": start + 2 * SECOND - 5}
    woke = alter["commitTs"] + DAY
    first = {**late_insert, "commitTs": woke, "startTs": woke - 5}
    second_row = {**late_insert["after"], "id": 3}
    second = {**late_insert, "commitTs": woke + SECOND, "startTs": woke, "after": second_row}
    return [create, insert, alter, first, second]


def write_records(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def expected_points(records: list[dict[str, Any]], interval_ms: int = 1000) -> list[int]:
    """The policy's points of ``records``: one per interval holding records (but the first),
    and the last commit ts."""
    stamps = [r["commitTs"] for r in records]
    grid = points_of_intervals([(ts >> LOGICAL_BITS) // interval_ms for ts in stamps], interval_ms)
    return sorted({*grid, stamps[-1]})
