"""Topic selection: default topic, explicit topics, dispatcher rules and a pattern."""

from __future__ import annotations

import pytest

from tisink.eventsink.router import DispatchRule, TopicExpression
from tisink.verify import VerifyError
from tisink.verify.topics import rule_expression, select_topics

EXISTING = ["cdc", "cdc_shop_orders", "cdc_shop_users", "audit", "other", "cdcXshop"]


def test_the_default_topic_alone() -> None:
    assert select_topics("cdc", EXISTING) == ["cdc"]


def test_a_missing_default_or_explicit_topic_is_an_error() -> None:
    with pytest.raises(VerifyError, match="topic 'nope' does not exist"):
        select_topics("nope", EXISTING)
    with pytest.raises(VerifyError, match="topic 'gone' does not exist"):
        select_topics("cdc", EXISTING, topics=["gone"])


def test_explicit_topics_follow_the_default_without_repeats() -> None:
    assert select_topics("cdc", EXISTING, topics=["audit", "cdc", "audit"]) == ["cdc", "audit"]


def test_rule_topics_literal_and_expression() -> None:
    rules = [
        DispatchRule(matcher=("audit.*",), topic="audit"),
        DispatchRule(matcher=("gone.*",), topic="gone"),  # routes nothing this run: skipped
        DispatchRule(matcher=("shop.*",), topic="cdc_{schema}_{table}"),
        DispatchRule(matcher=("*.*",), partition="table"),
    ]
    assert select_topics("cdc", EXISTING, rules=rules) == [
        "cdc",
        "audit",
        "cdc_shop_orders",
        "cdc_shop_users",
    ]


def test_an_expression_matches_what_the_router_produces() -> None:
    expression = "pre.{schema}-{table}_x"
    pattern = rule_expression(expression)
    produced = TopicExpression(expression).substitute("my db", "t/1")
    assert pattern.fullmatch(produced)
    assert not pattern.fullmatch("preXdb-t_x")


def test_a_pattern_selects_existing_topics() -> None:
    assert select_topics("cdc", EXISTING, topic_pattern=".*") == [
        "cdc",
        *sorted(set(EXISTING) - {"cdc"}),
    ]
    assert select_topics("cdc", EXISTING, topic_pattern="a.*") == ["cdc", "audit"]
    with pytest.raises(VerifyError, match="topic pattern"):
        select_topics("cdc", EXISTING, topic_pattern="(")
