"""What every test shares: the markers that split the suite (``tests/markers.py``), the
hypothesis profiles, where the golden data lives, the broker and the database servers
(``tests/db_servers.py``).

Hypothesis profiles: ``dev`` (the default) and ``ci`` (``HYPOTHESIS_PROFILE=ci``, which
``.ci/run`` sets: more examples per property, derandomized so a red CI is reproducible and a
green one is not luck). A test sets ``max_examples`` itself only to run fewer, where one example
is costly.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests import markers
from tests.apache_kafka_fixture import apache_kafka_bootstrap
from tests.broker_fixture import kafka_bootstrap
from tests.db_servers import fresh_mariadb, fresh_postgresql, mariadb_url, postgresql_url
from tests.schema_registry_fixture import schema_registry_url

__all__ = [
    "apache_kafka_bootstrap",
    "fresh_mariadb",
    "fresh_postgresql",
    "kafka_bootstrap",
    "mariadb_url",
    "postgresql_url",
    "reference_data",
    "schema_registry_url",
    "simple_golden",
]

REFERENCE_DATA = Path(__file__).resolve().parent / "data"

settings.register_profile(
    "dev", deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("ci", parent=settings.get_profile("dev"), max_examples=300,
                          derandomize=True, print_blob=True)  # fmt: skip
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_configure(config: pytest.Config) -> None:
    # xdist's workers inherit COLUMNS=80 from their start-up; a test sees the same environment
    # in a worker as in one process, and output widths never depend on the caller's terminal
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)
    markers.register(config)
    stale = markers.check_module_table()
    if stale:
        raise pytest.UsageError(f"tests/markers.py MODULE_MARKERS names missing paths: {stale}")


@pytest.fixture(autouse=True)
def _guard_subprocesses(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    markers.guard_subprocesses(request.node, monkeypatch)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Markers first, so ``-m`` and xdist's groups see them."""
    markers.apply(items)


@pytest.fixture(scope="session")
def reference_data() -> Path:
    """``tests/data``: the reference formats and goldens, copied into the repository
    (``tests/data/README.md`` names their sources)."""
    return REFERENCE_DATA


@pytest.fixture(scope="session")
def simple_golden(reference_data: Path) -> Path:
    return reference_data / "formats" / "ticdc-simple" / "golden"
