"""Topic rules of ``[[sink.dispatchers]]`` (TiCDC ``eventrouter/topic``).

An empty rule means the default topic, a plain Kafka name is used as is, and anything else must
be an expression ``[prefix]{schema}[middle{table}][suffix]``. Substitution replaces every
character Kafka forbids in the schema and table names with ``_``, then caps the name at 249
bytes and maps the reserved names ``.`` and ``..`` to ``_`` and ``__``.
"""

from __future__ import annotations

import re

from tisink.eventsink.router.errors import TopicExpressionError

KAFKA_TOPIC_MAX_BYTES = 249

_NAME_CHARS = r"[A-Za-z0-9._\-]"
_TOPIC_NAME = re.compile(_NAME_CHARS + "+")
_EXPRESSION = re.compile(
    rf"{_NAME_CHARS}*(\{{schema\}})?({_NAME_CHARS}*\{{table\}})?{_NAME_CHARS}*"
)
_KAFKA_FORBIDDEN = re.compile(r"[^A-Za-z0-9._\-]")


def sanitize_name(name: str) -> str:
    """Replace each character Kafka forbids in a topic name with ``_`` (one per character)."""
    return _KAFKA_FORBIDDEN.sub("_", name)


class StaticTopic:
    """A rule that names one topic for every table it matches."""

    __slots__ = ("topic",)

    def __init__(self, topic: str) -> None:
        self.topic = topic

    def substitute(self, schema: str, table: str) -> str:
        return self.topic

    def __repr__(self) -> str:
        return f"StaticTopic({self.topic!r})"


class TopicExpression:
    """A validated ``{schema}``/``{table}`` expression."""

    __slots__ = ("expression",)

    def __init__(self, expression: str) -> None:
        if _EXPRESSION.fullmatch(expression) is None:
            raise TopicExpressionError(
                f"invalid topic expression {expression!r}: expected "
                "[prefix]{schema}[middle{table}][suffix] of the characters [A-Za-z0-9._-]"
            )
        self.expression = expression

    def substitute(self, schema: str, table: str) -> str:
        topic = self.expression.replace("{schema}", sanitize_name(schema)).replace(
            "{table}", sanitize_name(table)
        )
        # Every character is ASCII by now, so characters and bytes coincide.
        if len(topic) > KAFKA_TOPIC_MAX_BYTES:
            return topic[:KAFKA_TOPIC_MAX_BYTES]
        if topic == ".":
            return "_"
        if topic == "..":
            return "__"
        return topic

    def __repr__(self) -> str:
        return f"TopicExpression({self.expression!r})"


TopicGenerator = StaticTopic | TopicExpression


_AVRO_EXPRESSION = re.compile(r"[A-Za-z0-9._-]*\{schema\}[A-Za-z0-9._-]*\{table\}[A-Za-z0-9._-]*")


def topic_generator(rule: str, default_topic: str, *, avro: bool = False) -> TopicGenerator:
    """Compile one rule's ``topic``; raises TopicExpressionError for an invalid expression.
    ``avro``: TiCDC's stricter rule for Avro protocols, whose per-table schemas need a topic
    per table: a rule's topic must name both ``{schema}`` and ``{table}``."""
    if not rule:
        return StaticTopic(default_topic)
    if avro and _AVRO_EXPRESSION.fullmatch(rule) is None:
        raise TopicExpressionError(
            f"invalid topic expression {rule!r} for an Avro protocol: expected "
            "[prefix]{schema}[middle]{table}[suffix] of the characters [A-Za-z0-9._-]"
        )
    if _TOPIC_NAME.fullmatch(rule):
        return StaticTopic(rule)
    return TopicExpression(rule)
