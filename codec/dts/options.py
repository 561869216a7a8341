"""Settings every DTS protocol shares (``tencent-dts`` in both encodings, ``alibaba-dts``),
under TiCDC-style keys."""

from __future__ import annotations

from dataclasses import dataclass

from tisink.codec.options import Option, to_non_negative_int

DEFAULT_CHECKPOINT_INTERVAL_IN_SEC = 10
"""DTS writes a CHECKPOINT every 10 s (spec/dts-formats.md 2.4)."""


@dataclass(frozen=True)
class DTSOptions:
    """``checkpoint_interval_in_sec``: least time, by the encoder's clock, between two
    CHECKPOINT messages or records; 0 sends one whenever the changefeed's checkpoint advances."""

    checkpoint_interval_in_sec: int = DEFAULT_CHECKPOINT_INTERVAL_IN_SEC


OPTIONS: tuple[Option, ...] = (
    Option(
        "dts-checkpoint-interval-in-sec",
        "checkpoint_interval_in_sec",
        to_non_negative_int,
        help="seconds between CHECKPOINT messages on every partition (0: on every advance)",
    ),
)
