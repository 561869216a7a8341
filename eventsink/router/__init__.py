"""Topic and partition routing of the MQ sinks (TiCDC ``eventrouter``): dispatch rules with
TiDB table-filter matchers, topic expressions and PositionInertia partition dispatchers."""

from tisink.eventsink.router.errors import (
    DispatchError,
    FilterSyntaxError,
    RouterError,
    TopicExpressionError,
)
from tisink.eventsink.router.filter import TableFilter
from tisink.eventsink.router.hash import PositionInertia
from tisink.eventsink.router.router import DispatchRule, EventRouter
from tisink.eventsink.router.topic import StaticTopic, TopicExpression, topic_generator

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
