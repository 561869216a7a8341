"""``corrupt-checksum``: one row message's checksum made wrong and ``corrupted`` set, as TiCDC
writes a row whose data did not match the checksum TiDB stored (``[integrity]
corruption-handle-level = "warn"``: the row goes on, flagged).

The injector does not decode rows, so the checksum is rewritten in the bytes where a protocol
puts it at a place found without the schema (``codec.checksum.carried_simple_json`` and
``carried_avro``): Simple's JSON ``"checksum"`` object (uncompressed), and the last three
fields of an Avro value (Confluent wire format). The carried ``current`` (``previous`` for a
DELETE, which has no new image) becomes ``codec.checksum.corrupted_value`` of it: never equal,
never 0 (which TiCDC reads as "no checksum"). Another message (another protocol, Simple's Avro
encoding, a compressed or claim-check message, a row without a checksum or one already
corrupted) is no point of the kind.
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.checksum import (
    carried_avro,
    carried_simple_json,
    corrupted_value,
    rewritten,
)
from tisink.codec.message import Record
from tisink.model.events import RowChecksum


def corrupt_value(value: bytes) -> bytes | None:
    """``value`` with its row checksum corrupted, or None when it carries none (or a
    corrupted one already)."""
    carried = carried_simple_json(value) or carried_avro(value)
    if carried is None or carried.checksum.corrupted:
        return None
    old = carried.checksum
    if old.current == 0 and old.previous == 0:
        return None
    current, previous = old.current, old.previous
    if current:
        current = corrupted_value(current)
    else:
        previous = corrupted_value(previous)
    return rewritten(value, carried, RowChecksum(old.version, True, current, previous))


def corrupt_run(run: Sequence[Record]) -> tuple[list[Record], int] | None:
    """``run`` with its first row message that carries a checksum corrupted, and that
    message's index; None when no message of the run carries one."""
    for index, record in enumerate(run):
        value = record[1]
        if value is None:
            continue
        new = corrupt_value(value)
        if new is not None:
            out: list[Record] = list(run)
            out[index] = (record[0], new, *record[2:])
            return out, index
    return None
