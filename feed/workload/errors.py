"""Errors of the workload generator: a scenario that cannot be generated."""

from __future__ import annotations

from tisink.feed.errors import FeedError


class ScenarioError(FeedError):
    """A scenario file is malformed or asks for something the generator cannot produce.

    ``file`` is the scenario's path (or built-in name); ``table`` and ``column`` name the part
    that is wrong, so the message reads ``demo.toml: table shop.orders column id: reason``.
    """

    def _render(self) -> str:
        if self.line is not None or self.file is None:
            return super()._render()
        located = FeedError(self.reason, table=self.table, column=self.column)
        return f"{self.file}: {located}"
