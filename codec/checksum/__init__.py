"""Row checksums as TiDB computes them and TiCDC carries them (``[integrity]
integrity-check-level = "correctness"``), from a row image in the feed's value form.

Followed from pingcap/tidb ``pkg/util/rowcodec`` (``common.go``: ``ColData.Encode``,
``RowData.Checksum``, ``appendDatumForChecksum``; ``encoder.go``: ``encodeValueDatum``,
``RawChecksum``; ``row.go``: the row format and ``CalculateRawChecksum``) and TiCDC's mounter
(pingcap/tiflow ``cdc/entry/mounter.go`` ``verifyChecksum``, pingcap/ticdc
``pkg/common/event/checksum.go``):

- **Column-level checksum** (TiDB's checksum V1, row header version 0): CRC32 (IEEE) over each
  stored column in column-id order, NULLs adding nothing, each value encoded as
  ``appendDatumForChecksum`` does (integers, ENUM, SET, BIT as little-endian uint64; floats as
  the float64 bits, Inf/NaN as 0; strings and bytes, DECIMAL, dates and times, JSON as a
  little-endian uint32 length and the text; VECTOR as TiDB serializes it). This is the value
  TiCDC writes in ``current``/``previous`` for every version, once the row verified.
- **Raw-bytes checksum** (TiDB's checksum V2 since v8.4, header version 2; version 1 is
  v8.3's): CRC32 over the row value in TiDB's row format v2 with the checksum flag, then the
  checksum header byte, then the encoded handle (version 2) or the row key (version 1). TiCDC
  checks it against the row; a row it fails is ``corrupted`` and TiCDC writes TiDB's stored
  value as ``current``.

The row value holds the columns TiDB's ``tables.CanSkip`` keeps: not the integer handle, not a
clustered primary-key column its key gives back, every NULL (as TiDB lists them since the fix of
pingcap/tidb#61709; older TiDB left out a NULL without a default); a JSON column as TiDB's
binary JSON (``codec.values.json_binary``). The handle is the integer primary
key, a clustered primary key's memcomparable encoding (``codec.values.memcomparable``: strings
by their collation's sort key; the binary and ``_bin`` collations are implemented, the others
refused), or the ``_tidb_rowid`` of a table without a clustered key, which neither TiCDC's
messages nor tisink's rows carry: a caller gives it (``handle=``) or the checksum is refused.
Whether a primary key is clustered is not in the schema: ``clustered=None`` takes TiDB's default
(``tidb_enable_clustered_index = ON``). TiCDC itself needs none of this to verify a row: it
re-encodes the non-NULL columns into the layout of the value it read and appends the handle from
the row key (ticdc ``verifyRawBytesChecksum``, TiDB ``row.CalculateRawChecksum``).

The package: ``columns`` (V1), ``rowvalue`` (V2: the row value, handles, row keys),
``carried`` (what TiCDC carries, and a checksum inside an encoded message).
"""

from __future__ import annotations

from tisink.codec.checksum.carried import (
    CORRUPTION_MASK,
    Carried,
    Corruption,
    carried_avro,
    carried_simple_json,
    corrupted_value,
    mismatches,
    rewritten,
    row_checksum,
    stored_checksum,
)
from tisink.codec.checksum.columns import (
    V1,
    V2,
    V2_ROW_KEY,
    VERSIONS,
    ChecksumError,
    column_checksum,
    decimal_text,
    encode_column,
    encode_row,
    vector_bytes,
)
from tisink.codec.checksum.rowvalue import (
    COMMON_HANDLE,
    INT_HANDLE,
    ROW_ID,
    common_handle_bytes,
    decimal_bin,
    duration_nanos,
    float_key,
    handle_bytes,
    handle_kind,
    int_handle_bytes,
    int_handle_column,
    key_datum,
    packed_time,
    primary_index,
    raw_checksum,
    row_handle,
    row_key,
    row_value,
    value_bytes,
)

__all__ = [
    "COMMON_HANDLE",
    "CORRUPTION_MASK",
    "INT_HANDLE",
    "ROW_ID",
    "V1",
    "V2",
    "V2_ROW_KEY",
    "VERSIONS",
    "Carried",
    "ChecksumError",
    "Corruption",
    "carried_avro",
    "carried_simple_json",
    "column_checksum",
    "common_handle_bytes",
    "corrupted_value",
    "decimal_bin",
    "decimal_text",
    "duration_nanos",
    "encode_column",
    "encode_row",
    "float_key",
    "handle_bytes",
    "handle_kind",
    "int_handle_bytes",
    "int_handle_column",
    "key_datum",
    "mismatches",
    "packed_time",
    "primary_index",
    "raw_checksum",
    "rewritten",
    "row_checksum",
    "row_handle",
    "row_key",
    "row_value",
    "stored_checksum",
    "value_bytes",
    "vector_bytes",
]
