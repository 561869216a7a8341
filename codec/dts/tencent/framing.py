"""Per partition framing of Tencent DTS records as the demo consumer follows it: the ``ps``
header's continuity and the reassembly of sliced Envelopes.

Problems are appended to the caller's list as text naming the rule (``ps:``, ``slices:``);
bytes that are no Envelope raise ValueError.
"""

from __future__ import annotations

from collections.abc import Sequence

from tisink.codec.dts.tencent import reader
from tisink.codec.dts.tencent.enums import ENVELOPE_VERSION

Headers = Sequence[tuple[str, bytes]]

PARTITION_SEQUENCE_HEADER = "ps"
"""Kafka header the demos check: per-partition message counter from 1."""


class Framing:
    """The last ``ps`` seen and the slices of an unfinished ``Entries``."""

    def __init__(self, sequence_header: str) -> None:
        self.sequence_header = sequence_header
        self._last_ps: int | None = None
        self._slices: list[bytes] = []
        self._total = 0

    def sequence(self, headers: Headers, problems: list[str]) -> bool:
        """Check ``ps``; False when the record is a duplicate the demo would skip."""
        values = [v for name, v in headers if name == self.sequence_header]
        if not values:
            problems.append("ps: header missing")
            return True
        try:
            ps = int(values[0].decode())
        except (ValueError, UnicodeDecodeError):
            problems.append(f"ps: {values[0]!r} is not a number")
            return True
        last, self._last_ps = self._last_ps, ps
        if last is None or ps == 1 or ps == last + 1:
            return True
        if ps <= last:
            self._last_ps = last
            problems.append(f"ps: duplicate ps {ps} after ps {last} (a consumer skips it)")
            return False
        problems.append(f"ps: gap from ps {last} to {ps}: {ps - last - 1} message(s) lost")
        return True

    def reassemble(self, envelope: reader.Envelope, problems: list[str]) -> bytes | None:
        """The complete ``Entries`` bytes once the last slice arrived, else None."""
        if envelope.version != ENVELOPE_VERSION:
            raise ValueError(f"unsupported Envelope version {envelope.version}")
        total, index = envelope.total, envelope.index
        if total < 1 or index >= total:
            raise ValueError(f"Envelope index {index} of total {total}")
        if index == 0:
            if self._slices:
                problems.append(
                    f"slices: Entries of {self._total} slices abandoned after {len(self._slices)}"
                )
            self._slices, self._total = [envelope.data], total
        elif index != len(self._slices) or total != self._total:
            expected = f"index {len(self._slices)} of {self._total}" if self._slices else "index 0"
            problems.append(f"slices: got index {index} of {total}, expected {expected}")
            self._slices, self._total = [], 0
            return None
        else:
            self._slices.append(envelope.data)
        if index < total - 1:
            return None
        data = b"".join(self._slices)
        self._slices, self._total = [], 0
        return data
