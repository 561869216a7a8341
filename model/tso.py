"""TiDB TSO helpers: a commit timestamp is ``physical_ms << 18 | logical``."""

from tisink.core.clock import TSO_LOGICAL_BITS as LOGICAL_BITS

LOGICAL_MASK = (1 << LOGICAL_BITS) - 1


def compose_ts(physical_ms: int, logical: int = 0) -> int:
    """Build a TSO from a Unix time in milliseconds and an 18-bit logical counter."""
    if not 0 <= logical <= LOGICAL_MASK:
        raise ValueError(f"logical part {logical} does not fit in {LOGICAL_BITS} bits")
    return (physical_ms << LOGICAL_BITS) | logical


def physical_ms(ts: int) -> int:
    """The Unix time in milliseconds carried by a TSO."""
    return ts >> LOGICAL_BITS


def logical(ts: int) -> int:
    """The logical counter carried by a TSO."""
    return ts & LOGICAL_MASK
