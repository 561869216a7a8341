"""Retries with capped exponential backoff for ``BatchingSink`` writes.

A write that raises an error the sink calls retriable is tried again after a pause that doubles
each time (``initial_backoff_s``, ``2 *``, ``4 *`` ... up to ``max_backoff_s``), shortened by a
random share of up to ``jitter`` so that many sinks failing together do not retry in lockstep.
After ``max_attempts`` tries, or on any other error, the failure is final.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from tisink.eventsink.errors import EventSinkError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently a failed write is tried again."""

    max_attempts: int = 8
    initial_backoff_s: float = 0.05
    max_backoff_s: float = 5.0
    multiplier: float = 2.0
    jitter: float = 0.2
    """Fraction (0..1) of each pause that is randomly cut off."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise EventSinkError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if self.initial_backoff_s < 0 or self.max_backoff_s < self.initial_backoff_s:
            raise EventSinkError(
                f"backoff must satisfy 0 <= initial ({self.initial_backoff_s}) <= max "
                f"({self.max_backoff_s})"
            )
        if not 0.0 <= self.jitter <= 1.0:
            raise EventSinkError(f"jitter must be within 0..1, got {self.jitter}")

    def backoff(self, failures: int) -> float:
        """The pause after the ``failures``-th failed attempt (1, 2, ...)."""
        pause = min(self.initial_backoff_s * self.multiplier ** (failures - 1), self.max_backoff_s)
        return pause * (1.0 - self.jitter * random.random())


async def retrying(
    write: Callable[[int], Awaitable[None]],
    policy: RetryPolicy,
    is_retriable: Callable[[Exception], bool],
    what: str,
    on_retry: Callable[[], None],
) -> None:
    """Await ``write(attempt)`` (attempt = 1, 2, ...) until it returns. The error that ends
    the tries (a non-retriable one at once, a retriable one after the last attempt) comes out
    as an EventSinkError saying ``what`` failed, after how many attempts, and why."""
    attempt = 1
    while True:
        try:
            await write(attempt)
            return
        except asyncio.CancelledError:
            raise
        except Exception as err:
            if not is_retriable(err) or attempt >= policy.max_attempts:
                tries = f" after {attempt} attempts" if attempt > 1 else ""
                raise EventSinkError(f"{what} failed{tries}: {err!r}") from err
            pause = policy.backoff(attempt)
            log.warning(
                "%s failed (attempt %d of %d), retrying in %.3f s: %r",
                what,
                attempt,
                policy.max_attempts,
                pause,
                err,
            )
            on_retry()
            await asyncio.sleep(pause)
            attempt += 1
