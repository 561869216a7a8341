"""The two ``Record.avsc`` files shipped in this package, as bytes and parsed.

Each file is one JSON array of 14 schemas, the ``Record`` last (the layout both vendors use); a
message is a bare datum of that last schema, never of the array's union. ``alibaba`` is the
verbatim public schema (shared/formats/alibaba-dts); ``tencent`` is rebuilt from Tencent's
documentation, with every unsettled choice in ``avsc/tencent/SCHEMA_NOTES.md``.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

FORMATS = ("alibaba", "tencent")
SCHEMA_FILE = "Record.avsc"


def schema_bytes(fmt: str) -> bytes:
    """The ``Record.avsc`` of ``fmt`` ("alibaba" or "tencent") as shipped."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown DTS Avro format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return (resources.files(__package__) / "avsc" / fmt / SCHEMA_FILE).read_bytes()


@cache
def record_schema(fmt: str) -> dict[str, Any]:
    """The parsed ``Record`` schema (fastavro), its named types resolved from the same file."""
    import fastavro

    named: dict[str, Any] = {}
    parsed: Any = None
    for schema in json.loads(schema_bytes(fmt)):
        parsed = fastavro.parse_schema(schema, named_schemas=named)
    return parsed
