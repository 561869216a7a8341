"""MySQL value rendering shared by every protocol and the router: time zones and TIMESTAMP text,
Go's float text, TiDB's JSON text, ENUM/SET/BIT/BINARY decoding.

Every function takes the feed-file value form (spec/feed-format.md "Values") and returns the text
or number TiCDC would write. They run once per column per row, so they are cheap; encoders bind
them into per-table renderers once per schema version.
"""

from tisink.codec.values.floats import float32_text, float64_text, to_float32, vector_text
from tisink.codec.values.json_text import json_text
from tisink.codec.values.members import (
    CANONICAL_PADDED_TAILS,
    binary_bytes,
    bit_default_number,
    enum_index,
    enum_indexes,
    set_bitmask,
    set_mask,
    set_names,
)
from tisink.codec.values.zones import timestamp_text, timestamp_texts, zone_for

__all__ = [
    "CANONICAL_PADDED_TAILS",
    "binary_bytes",
    "bit_default_number",
    "enum_index",
    "enum_indexes",
    "float32_text",
    "float64_text",
    "json_text",
    "set_bitmask",
    "set_mask",
    "set_names",
    "timestamp_text",
    "timestamp_texts",
    "to_float32",
    "vector_text",
    "zone_for",
]
