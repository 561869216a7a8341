"""The options of TiCDC's Simple Protocol: its bootstrap cadence (spec 4.1) and ``newarch``.

Apart from the registry entry, so the encoder reads them without importing the entry that
builds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tisink.codec.architecture import NEWARCH_OPTION
from tisink.codec.bootstrap import BootstrapSettings
from tisink.core.options import Option, to_bool, to_non_negative_int


@dataclass(frozen=True)
class SimpleOptions(BootstrapSettings):
    """Simple's own settings are its bootstrap cadence (spec 4.1) and ``newarch``: the new
    architecture's bytes (pingcap/ticdc), false the classic one's (pingcap/tiflow, README.md)."""

    newarch: bool = True


OPTIONS = (
    Option(
        "send-bootstrap-interval-in-sec",
        "send_bootstrap_interval_in_sec",
        to_non_negative_int,
        uri=False,
        help="resend a table's BOOTSTRAP after this many seconds (0 disables bootstraps)",
    ),
    Option(
        "send-bootstrap-in-msg-count",
        "send_bootstrap_in_msg_count",
        to_non_negative_int,
        uri=False,
        help="resend a table's BOOTSTRAP after this many rows (0 disables bootstraps)",
    ),
    Option(
        "send-bootstrap-to-all-partition",
        "send_bootstrap_to_all_partition",
        to_bool,
        uri=False,
        help="BOOTSTRAP to every partition of the topic (else partition 0)",
    ),
    Option(
        "send-all-bootstrap-at-start",
        "send_all_bootstrap_at_start",
        to_bool,
        uri=False,
        help="every table's BOOTSTRAP when the changefeed starts",
    ),
    NEWARCH_OPTION,
)
