"""Options more than one command takes, declared once (the name, the type and the help), and
how a command's parameters become the spec its library takes.

A command declares ``workload: Workload = None``; ``tisink play``'s parameters are named as
``PlaySpec``'s fields, so ``spec_of`` builds the spec without naming each option again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    Spec = TypeVar("Spec", bound=DataclassInstance)
else:
    Spec = TypeVar("Spec")

Workload = Annotated[
    str | None,
    typer.Option(
        "--workload", help="Built-in scenario (demo, all-types, bank, sysbench) or a TOML file."
    ),
]
SchemaSql = Annotated[
    Path | None,
    typer.Option(
        "--schema-sql", help="Or a MySQL CREATE TABLE dump: a default workload over its tables."
    ),
]
Seed = Annotated[
    int, typer.Option("--seed", help="Workload seed: the same seed gives the same rows.")
]
Rows = Annotated[
    int | None, typer.Option("--rows", help="Workload rows (default: the scenario's).")
]

SummaryJson = Annotated[
    Path | None,
    typer.Option("--summary-json", help="Write the result as machine-readable JSON here."),
]
ReportDir = Annotated[
    Path | None,
    typer.Option(
        "--report", help="Write summary.json and play.png (rows/s and p99 over time) here."
    ),
]
ReportJson = Annotated[Path | None, typer.Option("--report-json", hidden=True)]
"""``tisink check``'s old spelling of ``--summary-json``, kept for a release."""


def spec_of(spec_type: type[Spec], given: Mapping[str, Any], **worked_out: Any) -> Spec:
    """``spec_type`` with each field taken from the parameter of its name in ``given`` (a
    command's ``locals()`` at its first line), or from ``worked_out`` (a value the command
    derived, such as the workload of ``--schema-sql``). A field no parameter sets is a
    KeyError: a renamed parameter cannot drop an option silently."""
    values = {**given, **worked_out}
    return spec_type(**{f.name: values[f.name] for f in fields(spec_type) if f.init})
