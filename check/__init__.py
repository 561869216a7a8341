"""``tisink check``: the oracle a consumer team runs. It compares a consumer's database with
the state a change feed implies (a database tisink's SQL applier wrote, or a feed or workload
applied to a temporary SQLite) table by table, with values normalised by their MySQL types."""

from tisink.check.errors import CheckError
from tisink.check.expected import ExpectedSource
from tisink.check.naming import Naming
from tisink.check.options import CheckOptions, command_options
from tisink.check.report import CheckReport, render_text, write_json
from tisink.check.run import check

__all__ = [
    "CheckError",
    "CheckOptions",
    "CheckReport",
    "ExpectedSource",
    "Naming",
    "check",
    "command_options",
    "render_text",
    "write_json",
]
