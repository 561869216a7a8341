"""Fixtures for the Simple codec tests: the 55-column large-event table and its row.

The table is ``tests/codec/data/large_event_table.json``, written by hand from the golden
``create_table.sql`` and TiDB's rules (lengths, flags, the int clustered key's synthetic
``primary`` index). The row is the golden ``mock_row_values.json`` turned into the feed value form.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tisink.model import TableInfo, TypeFamily

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="session")
def large_table() -> TableInfo:
    return TableInfo.from_dict(
        json.loads((DATA / "large_event_table.json").read_text(encoding="utf-8"))
    )


def _feed_value(family: TypeFamily, text: str) -> Any:
    """One mock MySQL text value in the feed form of its column family."""
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR):
        return int(text)
    if family in (TypeFamily.FLOAT, TypeFamily.DOUBLE):
        return float(text)
    if family is TypeFamily.BINARY:
        return base64.b64encode(text.encode()).decode()
    if family is TypeFamily.SET:
        return text.split(",") if text else []
    if family in (TypeFamily.VECTOR, TypeFamily.JSON):
        return json.loads(text)
    return text


@pytest.fixture(scope="session")
def large_row_image(simple_golden: Path, large_table: TableInfo) -> dict[str, Any]:
    mock = json.loads((simple_golden / "large-event" / "mock_row_values.json").read_text())
    image: dict[str, Any] = {}
    for column in large_table.columns:
        if column.name in mock["binary_values_hex"]:
            image[column.name] = int(mock["binary_values_hex"][column.name], 16)
            continue
        text = mock["text_values"][column.name]
        image[column.name] = None if text is None else _feed_value(column.family, text)
    return image
