"""TiCDC's ``PositionInertia`` hash (``pkg/hash/position_inertia.go``).

Each write XORs the CRC-32 (IEEE, as ``zlib.crc32``) of its concatenated parts into the sum, so
the order of writes does not change the result; a partition is ``sum % partition_num``.
"""

from __future__ import annotations

import zlib


def crc32_of(*parts: bytes) -> int:
    """The CRC-32 of the concatenated parts, without building the concatenation."""
    crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
    return crc


class PositionInertia:
    """An order-insensitive hash over writes of byte strings."""

    __slots__ = ("sum32",)

    def __init__(self) -> None:
        self.sum32 = 0

    def write(self, *parts: bytes) -> None:
        self.sum32 ^= crc32_of(*parts)

    def reset(self) -> None:
        self.sum32 = 0
