"""Topic and partition routing of the MQ sinks (TiCDC ``eventrouter``): dispatch rules with
TiDB table-filter matchers, topic expressions and PositionInertia partition dispatchers."""

from eventsink.router.errors import (
    DispatchError,
    FilterSyntaxError,
    RouterError,
    TopicExpressionError,
)
from eventsink.router.filter import TableFilter
from eventsink.router.hash import PositionInertia
from eventsink.router.router import DispatchRule, EventRouter
from eventsink.router.topic import StaticTopic, TopicExpression, topic_generator

__all__ = [
    "DispatchError",
    "DispatchRule",
    "EventRouter",
    "FilterSyntaxError",
    "PositionInertia",
    "RouterError",
    "StaticTopic",
    "TableFilter",
    "TopicExpression",
    "TopicExpressionError",
    "topic_generator",
]
