"""The suite's markers, and the one place that decides which test carries which.

A plain ``pytest -q`` runs the unit and property tests in parallel and leaves out every test that
starts something heavy (``pyproject.toml``'s ``addopts``); ``pytest -q -m ''`` runs everything.
A test's markers come from what it uses, so a new test is placed without anyone remembering to:

- its fixtures (``FIXTURE_MARKERS``): the broker, a database server, a Spark session;
- its parameters: a test parametrised over SQL dialects (``SERVER_PARAMS``) needs a server for
  ``mysql`` and ``postgresql``, not for ``sqlite``; one parametrised over fixture names takes
  those fixtures' markers;
- its module (``MODULE_MARKERS``, paths under ``tests/``): a module that runs ``tisink`` in a
  subprocess, plays on the Spark engine or installs a distribution says so here, once.

The default run holds the rule up: a test with none of these markers that starts a heavy
program (Java, the broker, a database server, the ``tisink`` command, pip: all go through
``subprocess.Popen``) fails, naming the marker and this file (``guard_subprocesses``). A light
child, such as a Python worker the code under test spawns, is allowed.

Tests that start a JVM, a subprocess play, a database server or a pip install also join one
xdist group, so the full suite runs them one at a time on one worker (two JVMs on two cores make
each other's timings meaningless) while the fast tests share the other worker.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

MARKERS: dict[str, str] = {
    "spark": "starts a JVM: a Spark session, a play on the Spark engine, or another Java program",
    "kafka": "talks to a Kafka broker (the embedded one, or TISINK_KAFKA_BOOTSTRAP)",
    "db": "needs a MariaDB or PostgreSQL server (skipped with a line where none is installed)",
    "cli": "runs the tisink command (or a Python child process) as a subprocess",
    "pip": "installs a distribution or builds a wheel",
    "slow": "takes seconds on its own, though it needs nothing outside the process",
}

# markers whose tests the default run leaves out (pyproject.toml's addopts names the same set)
HEAVY = frozenset(MARKERS)

# markers whose tests run one at a time in the full suite (one xdist group)
SERIAL = frozenset({"spark", "db", "cli", "pip"})
SERIAL_GROUP = "serial"

FIXTURE_MARKERS: dict[str, str] = {
    "spark": "spark",
    "kafka_bootstrap": "kafka",
    "apache_kafka_bootstrap": "spark",  # a JVM: one at a time
    "schema_registry_url": "spark",  # Apicurio Registry: a JVM
    "mariadb_url": "db",
    "postgresql_url": "db",
    "fresh_mariadb": "db",
    "fresh_postgresql": "db",
}

# parameters naming a SQL dialect: the dialects that need a server started
SERVER_PARAMS = frozenset({"database", "kind", "dialect"})
SERVER_DIALECTS = frozenset({"mysql", "postgresql"})

# paths relative to tests/: a folder (ending in "/") or a module; the markers of every test there
MODULE_MARKERS: dict[str, tuple[str, ...]] = {
    # the Spark engine and what plays on it
    "feed/spark/": ("spark",),
    "feed/workload/test_spark_scenarios.py": ("spark",),
    "sink/test_plugin_capabilities.py": ("spark", "pip"),
    "tisink/test_cli_spark.py": ("spark", "cli"),
    "tisink/test_cli.py": ("spark", "cli"),
    "tisink/test_cli_lifecycle.py": ("spark", "cli"),
    "codec/canal/test_play_verify.py": ("spark", "cli"),
    "codec/open/test_play_verify.py": ("spark", "cli"),
    "codec/canal/test_flink_consumer.py": ("spark", "pip"),
    "codec/debezium/test_flink_consumer.py": ("spark", "pip"),
    # a broker of their own (through a proxy that cuts connections)
    "eventsink/kafka/test_faults.py": ("kafka",),
    "eventsink/kafka/test_play_through_cuts.py": ("kafka",),
    "replay/test_kafka_source.py": ("kafka",),
    "run/test_apache_kafka.py": ("spark", "kafka", "cli"),  # Apache Kafka: a JVM of its own
    "run/test_schema_registry.py": ("spark", "cli"),  # Apicurio: a JVM, and tisink registry
    "tisink/test_play_apache_kafka.py": ("kafka",),
    "tisink/test_replay_commands.py": ("kafka",),
    "bench/test_replay_group.py": ("kafka",),
    # the tisink command, a Python child process or a script, in a subprocess
    "ci/": ("cli",),
    "codec/dts/avro/test_end_to_end.py": ("cli",),
    "core/test_allocator.py": ("cli",),
    "eventsink/kafka/test_broker_restart.py": ("cli", "kafka"),
    "replay/test_records.py": ("cli",),
    "eventsink/sql/test_crash.py": ("cli",),
    "eventsink/sql/test_play.py": ("cli",),
    "eventsink/storage/test_append_resume.py": ("cli",),
    "eventsink/storage/test_crash.py": ("cli",),
    "eventsink/test_file_durability.py": ("cli",),
    "examples/test_consumers.py": ("cli",),
    "feed/workload/test_sql_schema.py": ("cli",),
    "feed/workload/test_scenario_cli.py": ("cli",),
    "test_readme_outputs.py": ("cli",),
    "bench/test_bench_interrupt.py": ("cli",),
    "bench/test_cpu.py": ("cli",),
    "check/test_secrets_cli.py": ("cli",),
    "run/test_broker.py": ("cli",),
    "tisink/test_cli_console.py": ("cli",),
    "tisink/test_cli_width.py": ("cli",),
    "tisink/test_logs.py": ("cli",),
    "tisink/test_play_rate_profile.py": ("cli",),
    "verify/test_kafka_source.py": ("cli",),
    # a pip install or a wheel build
    "sink/test_plugin.py": ("pip",),
    "tisink/test_wheel.py": ("pip",),
}

TESTS = Path(__file__).resolve().parent


def register(config: pytest.Config) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


def _module_markers(path: Path) -> Iterable[str]:
    try:
        relative = path.resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return ()
    found: list[str] = []
    for prefix, names in MODULE_MARKERS.items():
        if relative == prefix or (prefix.endswith("/") and relative.startswith(prefix)):
            found.extend(names)
    return found


def markers_of(item: pytest.Item) -> set[str]:
    """The markers a test gets from its fixtures and its module."""
    names = {FIXTURE_MARKERS[f] for f in getattr(item, "fixturenames", ()) if f in FIXTURE_MARKERS}
    names.update(_module_markers(item.path))
    callspec = getattr(item, "callspec", None)
    for key, value in callspec.params.items() if callspec is not None else ():
        if not isinstance(value, str):
            continue
        if key in SERVER_PARAMS and value in SERVER_DIALECTS:
            names.add("db")
        if value in FIXTURE_MARKERS:  # a fixture's name, taken with request.getfixturevalue
            names.add(FIXTURE_MARKERS[value])
    return names


def apply(items: list[pytest.Item]) -> None:
    for item in items:
        names = markers_of(item)
        for name in sorted(names):
            item.add_marker(getattr(pytest.mark, name))
        if names & SERIAL or any(item.get_closest_marker(name) for name in SERIAL):
            item.add_marker(pytest.mark.xdist_group(SERIAL_GROUP))


# programs a test may start only under a marker: name (or prefix, ending in "*") -> marker
HEAVY_PROGRAMS: dict[str, str] = {
    "java": "spark",
    "tisink": "cli",
    "tansu*": "kafka",
    "mariadbd": "db",
    "mariadb-install-db": "db",
    "postgres": "db",
    "initdb": "db",
    "runuser": "db",
    "pip": "pip",
}
# ``python -m X`` for these modules is the program itself
HEAVY_MODULES: dict[str, str] = {"tisink": "cli", "tisink.cli": "cli", "pip": "pip"}


def heavy_marker(argv: Any) -> str | None:
    """The marker a command line needs, or None for a light child."""
    if isinstance(argv, (str, bytes, os.PathLike)):
        argv = [argv]
    words = [os.fsdecode(a) for a in argv]
    if not words:
        return None
    program = Path(words[0]).name
    for name, marker in HEAVY_PROGRAMS.items():
        if program == name or (name.endswith("*") and program.startswith(name[:-1])):
            return marker
    if "-m" in words[1:-1]:
        return HEAVY_MODULES.get(words[words.index("-m") + 1])
    return None


def guard_subprocesses(item: pytest.Item, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a test without a heavy marker, starting a heavy program fails and says what to mark."""
    if any(item.get_closest_marker(name) for name in HEAVY):
        return
    real = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def guarded(self: subprocess.Popen[bytes], args: Any, *rest: Any) -> None:
        marker = heavy_marker(args)
        if marker is not None:
            raise RuntimeError(
                f"{item.nodeid} starts {args!r} but is not marked {marker!r}: "
                "add its module to MODULE_MARKERS in tests/markers.py"
            )
        real(self, args, *rest)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", guarded)


def check_module_table() -> list[str]:
    """Entries of ``MODULE_MARKERS`` that name no file or folder (a renamed test module)."""
    return [
        prefix
        for prefix in MODULE_MARKERS
        if not (TESTS / prefix).exists() or (prefix.endswith("/") != (TESTS / prefix).is_dir())
    ]
