"""tisink's codec layer (see DESIGN.md): protocol encoders, pure, no I/O."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codec.clock import Clock
    from codec.config import EncoderConfig
    from codec.encoder import RowEventEncoder

__all__ = ["new_encoder"]


def new_encoder(config: EncoderConfig, clock: Clock | None = None) -> RowEventEncoder:
    """The encoder for ``config.protocol``: "simple" (JSON or Avro per ``encoding-format``) or
    "debug". Imported lazily so that ``import codec`` stays cheap and cycle-free."""
    if config.protocol == "debug":
        from codec.debug import DebugEncoder

        return DebugEncoder(clock)
    from codec.simple.encoder import SimpleEncoder

    return SimpleEncoder(config, clock)
