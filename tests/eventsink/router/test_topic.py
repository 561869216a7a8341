"""Topic rules: default, literal names, {schema}/{table} expressions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.eventsink.router import (
    StaticTopic,
    TopicExpression,
    TopicExpressionError,
    topic_generator,
)
from tisink.eventsink.router.topic import KAFKA_TOPIC_MAX_BYTES, sanitize_name


def test_empty_rule_is_the_default_topic():
    generator = topic_generator("", "cdc-default")
    assert isinstance(generator, StaticTopic)
    assert generator.substitute("any", "table") == "cdc-default"


@pytest.mark.parametrize("rule", ["orders", "a.b-c_d", "x" * 300, "."])
def test_plain_names_are_used_as_is(rule: str):
    generator = topic_generator(rule, "cdc-default")
    assert isinstance(generator, StaticTopic)
    assert generator.substitute("s", "t") == rule


@pytest.mark.parametrize(
    ("expression", "schema", "table", "topic"),
    [
        ("{schema}", "shop", "orders", "shop"),
        ("{table}", "shop", "orders", "orders"),
        ("cdc_{schema}_{table}", "shop", "orders", "cdc_shop_orders"),
        ("p.-_{schema}mid{table}.s", "S", "T", "p.-_SmidT.s"),
        ("{schema}_{table}", "Shop", "Orders", "Shop_Orders"),  # case is kept
        ("x_{schema}", "a b/c", "t", "x_a_b_c"),
        ("{schema}.{table}", "数据", "表", "__._"),  # one "_" per character
        ("{schema}", ".", "t", "_"),
        ("{schema}", "..", "t", "__"),
        ("{schema}{table}", ".", ".", "__"),  # ".." after substitution
        ("{schema}", "...", "t", "..."),
        ("{table}", "s", "!@#$%^&*()+{}", "_" * 13),
    ],
)
def test_expression_substitution(expression: str, schema: str, table: str, topic: str):
    generator = topic_generator(expression, "cdc-default")
    assert isinstance(generator, TopicExpression)
    assert generator.substitute(schema, table) == topic


def test_substitution_truncates_to_249_bytes():
    generator = TopicExpression("prefix_{schema}_{table}")
    topic = generator.substitute("s" * 200, "t" * 200)
    assert len(topic.encode()) == KAFKA_TOPIC_MAX_BYTES == 249
    assert topic == ("prefix_" + "s" * 200 + "_" + "t" * 200)[:249]
    # a multi-byte name is sanitised first, so the cut never splits a character
    assert TopicExpression("{table}").substitute("s", "é" * 300) == "_" * 249


@pytest.mark.parametrize(
    "expression",
    [
        "{{schema}",
        "{schema}}",
        "{xxx}",
        "a{sch}",
        "{table}_{schema}",  # {schema} must come first
        "{schema}!{table}",
        "数据{schema}",
        "{schema}_{table}_{table}",
        "topic name",
        "topic\n",
    ],
)
def test_invalid_expressions_are_rejected_naming_the_expression(expression: str):
    with pytest.raises(TopicExpressionError, match="invalid topic expression") as caught:
        topic_generator(expression, "cdc-default")
    assert repr(expression) in str(caught.value)


@settings(deadline=None)
@given(schema=st.text(max_size=300), table=st.text(max_size=300))
def test_substituted_topics_are_valid_kafka_names(schema: str, table: str):
    topic = TopicExpression("cdc.{schema}-{table}").substitute(schema, table)
    assert len(topic.encode()) <= 249
    assert sanitize_name(topic) == topic
    assert topic not in (".", "..")
