"""tisink's codec layer (see DESIGN.md): protocol encoders, pure, no I/O."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.core.clock import WallClock

if TYPE_CHECKING:
    from tisink.codec.config import EncoderConfig
    from tisink.codec.encoder import RowEventEncoder
    from tisink.core.clock import Clock

__all__ = ["new_encoder"]


def new_encoder(config: EncoderConfig, clock: Clock | None = None) -> RowEventEncoder:
    """The encoder of ``config.protocol``, as its registry entry builds it."""
    return config.spec.new_encoder(config, clock or WallClock())
