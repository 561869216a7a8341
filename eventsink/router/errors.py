"""Errors of the event router: bad dispatch rules and rows that cannot be dispatched."""

from tisink.eventsink.errors import EventSinkError


class RouterError(EventSinkError):
    """A dispatch rule is invalid, or a row cannot be routed; the message names the rule or the
    table and column."""


class FilterSyntaxError(RouterError):
    """A ``matcher`` pattern does not follow TiDB's table-filter syntax."""


class TopicExpressionError(RouterError):
    """A ``topic`` rule is neither a topic name nor a valid ``{schema}``/``{table}`` expression."""


class DispatchError(RouterError):
    """A partition dispatcher does not fit a table: missing or non-unique index, missing or
    virtual column, or a value it cannot hash."""
