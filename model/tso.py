"""TiDB TSO helpers: a commit timestamp is ``physical_ms << 18 | logical``."""

from datetime import UTC, datetime

from tisink.core.clock import TSO_LOGICAL_BITS as LOGICAL_BITS

LOGICAL_MASK = (1 << LOGICAL_BITS) - 1

LATEST_PHYSICAL_MS = 7_258_118_400_000
"""2200-01-01T00:00:00Z: no commit time of a feed or workload may reach it. A 64-bit TSO can
name times up to the year 4199, but such a value is a corrupt or made-up timestamp, and the
commit-time machinery (watermark grid, feed clock, timers) would run over centuries of it. The
bound is fixed, not relative to today, so a feed that plays now plays the same way later."""
LATEST_TS = (LATEST_PHYSICAL_MS << LOGICAL_BITS) - 1
"""The last TSO before ``LATEST_PHYSICAL_MS``."""


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


def utc_text(ms: int) -> str:
    """Unix time ``ms`` as ``YYYY-MM-DDTHH:MM:SS.mmmZ`` (for messages about commit times)."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def too_late(ts: int) -> str | None:
    """Why ``ts`` is past the latest commit time a feed may hold, or None if it is not."""
    if ts <= LATEST_TS:
        return None
    when, bound = utc_text(physical_ms(ts)), utc_text(LATEST_PHYSICAL_MS)
    return f"{ts} is a TSO of {when}; commit times must be before {bound}"
