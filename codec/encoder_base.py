"""The set-up the row encoders of simple, open, canal-json and debezium share.

Each reads the same settings the same way: the clock, the changefeed's zone, the
``large-message-handle-compression`` function and the large-message fallback
(``LargeMessages``). A subclass adds its own (its options, its renderer cache) in ``_set_up``.
"""

from __future__ import annotations

import datetime
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable

from tisink.codec.config import EncoderConfig
from tisink.codec.large_message import LargeMessages
from tisink.codec.values import zone_for
from tisink.core.clock import Clock, WallClock
from tisink.core.framing import RECORD_OVERHEAD


class EncoderBase(ABC):
    """``_limit`` is the longest value of a keyless record (max-message-bytes less TiCDC's
    record overhead); ``uuid_factory`` names claim-check files."""

    def __init__(
        self,
        config: EncoderConfig,
        clock: Clock | None = None,
        *,
        uuid_factory: Callable[[], object] = uuid.uuid4,
    ) -> None:
        self._config = config
        self._clock = clock or WallClock()
        self._tz: datetime.tzinfo = zone_for(config.time_zone)[1]
        self._large = large = LargeMessages(config, uuid_factory)
        self._compress = large.compress
        self._compressing = large.compressing
        self._max_bytes = config.max_message_bytes
        self._limit = config.max_message_bytes - RECORD_OVERHEAD
        self._set_up(config)

    @abstractmethod
    def _set_up(self, config: EncoderConfig) -> None:
        """The protocol's own set-up, after the shared one."""
