"""Ctrl-C and SIGTERM during a play: stop reading, let what was sent finish, then report.

The first signal only asks the play to stop: the source ends early (on Spark, every
partition owner stops taking records), the player drains the sinks (each bounded by its own
timeouts) and the run's summary, with the last checkpoint, is
printed and written. A second signal interrupts at once.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterable, Iterator
from types import FrameType
from typing import TypeVar

T = TypeVar("T")

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """Raised inside an ``interruptible`` block when a stop is requested; a BaseException, so
    that no ``except Exception`` on the way (logging's, for one) swallows it."""


class StopRequest:
    """Which signal asked the play to stop, if any."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._callbacks: list[Callable[[], None]] = []
        self._interruptible = False

    def on_stop(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (from the signal handler: keep it short) when a stop is asked;
        at once when one already was."""
        self._callbacks.append(callback)
        if self.signum is not None:
            callback()

    def request(self, signum: int) -> None:
        """Ask the play to stop, as ``signum`` arriving does."""
        self.signum = signum
        for callback in self._callbacks:
            callback()
        if self._interruptible:
            self._interruptible = False
            raise Interrupted

    @contextlib.contextmanager
    def interruptible(self) -> Iterator[None]:
        """A block that a stop request ends at once (the request raises ``Interrupted`` where
        the block is, which this swallows): for work that only reads, such as verify, and
        would otherwise hold Ctrl-C off until its own timeout."""
        self._interruptible = True
        try:
            yield
        except Interrupted:
            pass
        finally:
            self._interruptible = False

    @property
    def exit_code(self) -> int:
        """128 + the signal number, as a shell reports a process stopped by it."""
        return 128 + (self.signum or 0)

    def stoppable(self, items: Iterable[T]) -> Iterator[T]:
        """``items`` until a stop is requested."""
        for item in items:
            if self.signum is not None:
                return
            yield item


@contextlib.contextmanager
def stop_on_signals(request: StopRequest) -> Iterator[StopRequest]:
    """Route SIGINT and SIGTERM to ``request`` while the block runs (main thread only)."""

    def handle(signum: int, _frame: FrameType | None) -> None:
        if request.signum is not None:
            raise KeyboardInterrupt
        request.request(signum)

    try:
        previous = {s: signal.signal(s, handle) for s in STOP_SIGNALS}
    except ValueError:  # not the main thread: leave signals alone
        yield request
        return
    try:
        yield request
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
