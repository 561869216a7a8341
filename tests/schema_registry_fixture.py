"""Session fixture ``schema_registry_url``: a Confluent-compatible schema registry's base URL.

The ``avro`` protocol registers its schemas in a schema registry. Set
``TISINK_SCHEMA_REGISTRY_URL`` to the base URL of one already running (a Confluent Schema
Registry, or Apicurio's ``.../apis/ccompat/v6``); otherwise the embedded Apicurio Registry
(``tisink.run.schema_registry``, in memory, on loopback) serves the session. It is built with
Maven on the first start on a machine (about 90 MB into tisink's cache); later starts take a
few seconds.

Import the fixture into a conftest: ``from tests.schema_registry_fixture import
schema_registry_url``; ``schema_registry_fixture(scope="module")`` makes another, for a module
that wants a registry of its own (an empty one: the embedded registry keeps nothing).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest

from tisink.run.schema_registry import start_schema_registry

SCHEMA_REGISTRY_URL_ENV = "TISINK_SCHEMA_REGISTRY_URL"

Scope = Literal["session", "package", "module", "class", "function"]


def external_schema_registry() -> str | None:
    """The external schema registry the tests were pointed at, if any."""
    return os.environ.get(SCHEMA_REGISTRY_URL_ENV) or None


def schema_registry_fixture(
    scope: Scope = "session", *, name: str = "schema_registry_url", **start: Any
) -> Callable[..., Iterator[str]]:
    """A fixture yielding a schema registry's Confluent-compatible base URL, started (with
    ``start`` passed to ``start_schema_registry``) and stopped once per ``scope``, unless an
    external one is set."""

    @pytest.fixture(scope=scope, name=name)
    def _schema_registry() -> Iterator[str]:
        external = external_schema_registry()
        if external:
            yield external.rstrip("/")
            return
        with start_schema_registry(**start) as registry:
            yield registry.url

    return _schema_registry


schema_registry_url = schema_registry_fixture("session")
"""The embedded Apicurio Registry's Confluent-compatible API, or ``TISINK_SCHEMA_REGISTRY_URL``."""
