"""Helpers for tests against a real Kafka protocol broker: read-back and a fault proxy."""
