"""Settings every DTS protocol shares (``tencent-dts`` in both encodings, ``alibaba-dts``),
under TiCDC-style keys."""

from __future__ import annotations

from dataclasses import dataclass

from tisink.codec.heartbeat import HeartbeatSettings
from tisink.core.options import Option, to_non_negative_int

DEFAULT_CHECKPOINT_INTERVAL_IN_SEC = 10
"""DTS writes a CHECKPOINT every 10 s (spec/dts-formats.md 2.4)."""


@dataclass(frozen=True, kw_only=True)
class DTSOptions(HeartbeatSettings):
    """``checkpoint_interval_in_sec``: least time, by the encoder's clock, between two
    CHECKPOINT messages or records; 0 sends one whenever the changefeed's checkpoint advances.
    ``heartbeat_interval_in_sec`` (10 by default, 0 off): a partition with no DML message for
    that long gets a HEARTBEAT. DTS documents neither its heartbeat period nor the MySQL
    source's (30 s by default), so tisink takes the checkpoint's 10 s."""

    checkpoint_interval_in_sec: int = DEFAULT_CHECKPOINT_INTERVAL_IN_SEC


OPTIONS: tuple[Option, ...] = (
    Option(
        "dts-checkpoint-interval-in-sec",
        "checkpoint_interval_in_sec",
        to_non_negative_int,
        help="seconds between CHECKPOINT messages on every partition (0: on every advance)",
    ),
    Option(
        "dts-heartbeat-interval-in-sec",
        "heartbeat_interval_in_sec",
        to_non_negative_int,
        help="seconds a partition may go without DML before it gets a HEARTBEAT (0: never)",
    ),
)
