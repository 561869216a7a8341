"""Where a scenario comes from: a built-in name, a TOML file, or a ``.sql`` dump.

Apart from ``scenario`` (the TOML parser) because a dump goes through ``sql_schema``, which
builds on that parser: the choice between the two sits above both.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.scenario import parse_scenario, read_scenario_text
from tisink.feed.workload.specs import Scenario
from tisink.feed.workload.sql_schema import load_sql_scenario


def builtin_scenarios() -> list[str]:
    folder = resources.files("tisink.feed.workload") / "scenarios"
    return sorted(
        p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml")
    )


def load_scenario(name_or_path: str | os.PathLike[str]) -> Scenario:
    """A built-in scenario by name, the scenario file at a path, or the default workload
    over the tables of a ``.sql`` dump (``sql_schema``)."""
    text_name = str(name_or_path)
    if text_name in builtin_scenarios():
        resource = resources.files("tisink.feed.workload") / "scenarios" / f"{text_name}.toml"
        return parse_scenario(resource.read_text(encoding="utf-8"), f"{text_name}.toml")
    path = Path(name_or_path)
    if not path.is_file():
        known = ", ".join(builtin_scenarios())
        raise ScenarioError(f"no scenario file {path} and no built-in {text_name!r} ({known})")
    if path.suffix.lower() == ".sql":
        return load_sql_scenario(path)
    return parse_scenario(read_scenario_text(path, str(path)), str(path))
