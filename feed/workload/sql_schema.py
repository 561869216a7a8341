"""Scenarios from SQL: the tables of a MySQL ``CREATE TABLE`` dump, with a default workload.

``tisink generate --schema-sql dump.sql`` (or any ``--workload`` path ending in ``.sql``)
parses the dump with sqlglot's MySQL dialect and turns each CREATE TABLE into a ``[[tables]]``
entry: columns with their types, NOT NULL, literal defaults and generated columns, the
primary key, unique and plain indexes. ``USE db`` names the schema of the tables after it
(``test`` before any). DROP, INSERT, SET, LOCK and other statements a dump holds are skipped;
what the generator cannot make (a spatial type, CREATE VIEW, a key on a decimal) is an error
naming ``file:line``, the table and the column. The workload is the scenario defaults: the
insert/update/delete mix, 1-5 rows per transaction, uniform keys.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.scenario import Scenario, scenario_from_doc

DEFAULT_ROWS = 10_000
_BOOLEAN = "tinyint(1)"


def load_sql_scenario(path: str | Path) -> Scenario:
    """The scenario of the dump at ``path``; ScenarioError with ``file:line`` otherwise."""
    source = str(path)
    text = Path(path).read_text(encoding="utf-8")
    return _Dump(source).scenario(text)


class _Dump:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(
        self, reason: str, line: int | None, table: str | None = None, column: str | None = None
    ) -> ScenarioError:
        return ScenarioError(reason, file=self.source, line=line, table=table, column=column)

    def scenario(self, text: str) -> Scenario:
        import sqlglot
        from sqlglot import exp
        from sqlglot.errors import ParseError

        quiet = logging.getLogger("sqlglot")
        level = quiet.level
        quiet.setLevel(logging.ERROR)  # LOCK TABLES and the like parse as commands, with a warning
        try:
            statements = sqlglot.parse(text, read="mysql")
        except ParseError as err:
            first = err.errors[0] if err.errors else {}
            reason = str(first.get("description") or err).splitlines()[0]
            raise self.fail(f"cannot parse the SQL: {reason}", first.get("line")) from None
        finally:
            quiet.setLevel(level)
        schema = "test"
        tables: list[dict[str, Any]] = []
        for statement in statements:
            if isinstance(statement, exp.Use):
                schema = statement.this.name
            elif isinstance(statement, exp.Create):
                kind = str(statement.args.get("kind") or "").upper()
                if kind == "TABLE":
                    tables.append(self.table(statement, schema))
                elif kind not in ("DATABASE", "SCHEMA"):
                    raise self.fail(f"CREATE {kind} is not supported", _line(statement.this))
        if not tables:
            raise self.fail("no CREATE TABLE in the file", None)
        doc = {"name": Path(self.source).stem, "rows": DEFAULT_ROWS, "tables": tables}
        return scenario_from_doc(doc, self.source)

    def table(self, create: Any, schema: str) -> dict[str, Any]:
        from sqlglot import exp

        target = create.this
        if not isinstance(target, exp.Schema):
            raise self.fail("CREATE TABLE ... LIKE / AS SELECT is not supported", _line(create))
        name = target.this.name
        schema = target.this.db or schema
        qualified = f"{schema}.{name}"
        line = _line(target.this)
        columns: list[dict[str, Any]] = []
        primary: list[str] = []
        indexes: list[dict[str, Any]] = []
        lines: dict[str, int | None] = {}
        for part in target.expressions:
            if isinstance(part, exp.ColumnDef):
                column = self.column(part, qualified)
                columns.append(column)
                lines[column["name"]] = _line(part.this)
                for constraint in part.constraints:
                    kind = constraint.args.get("kind")
                    if isinstance(kind, exp.PrimaryKeyColumnConstraint):
                        primary.append(column["name"])
                    elif isinstance(kind, exp.UniqueColumnConstraint):
                        indexes.append(
                            {"name": column["name"], "columns": [column["name"]], "unique": True}
                        )
            elif isinstance(part, exp.PrimaryKey):
                primary = [_column_name(c) for c in part.expressions]
            elif isinstance(part, exp.UniqueColumnConstraint):
                names = [_column_name(c) for c in part.this.expressions]
                ident = part.this.this
                index_name = ident.name if ident is not None else names[0]
                indexes.append({"name": index_name, "columns": names, "unique": True})
            elif isinstance(part, exp.IndexColumnConstraint):
                names = [_column_name(c) for c in part.expressions]
                indexes.append(
                    {"name": part.this.name if part.this else names[0], "columns": names}
                )
        entry: dict[str, Any] = {"schema": schema, "name": name, "columns": columns}
        if primary:
            entry["primary"] = primary
        if indexes:
            entry["indexes"] = indexes
        try:  # each table alone first, so an error points at its line
            scenario_from_doc({"tables": [entry]}, self.source)
        except ScenarioError as err:
            where = lines.get(err.column or "") or line
            raise self.fail(err.reason, where, qualified, err.column) from None
        return entry

    def column(self, part: Any, table: str) -> dict[str, Any]:
        from sqlglot import exp

        name = part.name
        kind = part.args.get("kind")
        if kind is None:
            raise self.fail("a column needs a type", _line(part.this), table, name)
        text = kind.sql("mysql")
        if text.upper() == "BOOLEAN":
            text = _BOOLEAN
        column: dict[str, Any] = {"name": name, "type": text, "nullable": True}
        for constraint in part.constraints:
            rule = constraint.args.get("kind")
            if isinstance(rule, exp.NotNullColumnConstraint):
                column["nullable"] = bool(rule.args.get("allow_null"))
            elif isinstance(rule, exp.PrimaryKeyColumnConstraint):
                column["nullable"] = False
            elif isinstance(rule, exp.ZeroFillColumnConstraint):
                column["type"] += " zerofill"
            elif isinstance(rule, exp.ComputedColumnConstraint):
                column["generated"] = "stored" if rule.args.get("persisted") else "virtual"
            elif isinstance(rule, exp.DefaultColumnConstraint):
                default = rule.this
                if isinstance(default, exp.Literal):
                    column["default"] = default.this
        return column


def _line(node: Any) -> int | None:
    meta = getattr(node, "meta", None) or {}
    line = meta.get("line")
    if line is None and getattr(node, "this", None) is not None and node.this is not node:
        return _line(node.this) if hasattr(node.this, "meta") else None
    return line


def _column_name(node: Any) -> str:
    """An index part: a column, or a column with a length or order (``name(10)``, ``DESC``)."""
    while not isinstance(node.this, str) and getattr(node, "this", None) is not None:
        node = node.this
    return str(node.name)
