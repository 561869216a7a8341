"""``tisink verify``: read a stream back with its protocol's decoder; check what consumers need.

``verify(sink_uri, ...)`` reads every partition of a sink's topics (any scheme with a reader)
from the beginning and returns a ``VerifyReport``; ``render_text`` formats it for the CLI.
"""

from tisink.verify.checker import PartitionChecker, StreamChecker
from tisink.verify.errors import VerifyError
from tisink.verify.report import RULES, VerifyReport, Violation, render_text
from tisink.verify.run import DEFAULT_TIMEOUT_S, verify

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "RULES",
    "PartitionChecker",
    "StreamChecker",
    "VerifyError",
    "VerifyReport",
    "Violation",
    "render_text",
    "verify",
]
