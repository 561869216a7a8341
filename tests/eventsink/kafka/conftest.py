"""Kafka sink tests share one broker per session (see tests/broker_fixture.py)."""

from tests.broker_fixture import kafka_bootstrap

__all__ = ["kafka_bootstrap"]
