"""Scenarios from SQL: the tables of a MySQL ``CREATE TABLE`` dump, with a default workload.

``tisink generate --schema-sql dump.sql`` (or any ``--workload`` path ending in ``.sql``)
cuts the dump into statements (``sql_split``), parses each CREATE TABLE with sqlglot's MySQL
dialect and turns it into a ``[[tables]]`` entry: columns with their types, NOT NULL and
literal defaults, the primary key, unique and plain indexes. ``USE db`` names the schema of the
tables after it (``test`` before any). A partitioned table keeps its partitioning (checked and
read by ``sql_partitions``), so its rows carry their partition's id; one the router cannot
follow is played as one table, with a warning; a temporary table is skipped, as TiCDC skips
it; DROP, INSERT, SET, LOCK, procedures, triggers and other statements are skipped. What the
generator cannot make (a spatial type, a generated column, CREATE VIEW, a key on a decimal) is
an error naming ``file:line``, the table and the column. The workload is the scenario defaults: the
insert/update/delete mix, 1-5 rows per transaction, uniform keys.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, NoReturn

from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.scenario import (
    Scenario,
    TableSpec,
    read_scenario_text,
    scenario_from_doc,
)
from tisink.feed.workload.sql_partitions import (
    Unroutable,
    parse_partitioning,
    partition_clause_at,
    partition_info,
    unquoted,
)
from tisink.feed.workload.sql_split import Statement, split_statements
from tisink.model.errors import SchemaError
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ROUTED_COLLATIONS, TableInfo

log = logging.getLogger(__name__)
DEFAULT_ROWS = 10_000
_BOOLEAN = "tinyint(1)"
_NAME = r"(?:`(?:[^`]|``)*`|[\w$]+)"
_USE = re.compile(rf"USE\s+({_NAME})\s*$", re.I)
_HEAD = re.compile(r"`(?:[^`]|``)*`|'[^']*'|\"[^\"]*\"|[\w$]+|\S")
_TABLE_NAME = re.compile(rf"TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?({_NAME}(?:\s*\.\s*{_NAME})?)", re.I)
_MODIFIERS = {"OR", "REPLACE", "UNIQUE", "FULLTEXT", "SPATIAL", "ONLINE", "OFFLINE", "AGGREGATE"}
_TEMPORARY = {"TEMPORARY", "GLOBAL", "LOCAL"}
_ASSIGNED = {"DEFINER", "ALGORITHM"}
_REFUSED_KINDS = ("VIEW", "INDEX")
"""CREATEs that change what TiCDC replicates; other kinds (PROCEDURE, TRIGGER, USER...) are
skipped like any statement that is not a table's."""
_SPATIAL = {"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring"}
_SPATIAL |= {"multipolygon", "geometrycollection", "geomcollection"}
_PART = re.compile(rf"\s*({_NAME})\s+([a-z]\w*)", re.I)
_NOT_COLUMNS = {"PRIMARY", "UNIQUE", "KEY", "INDEX", "CONSTRAINT", "FOREIGN", "FULLTEXT"}
_NOT_COLUMNS |= {"SPATIAL", "CHECK", "PERIOD"}
_BODY = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|[(),]")


def load_sql_scenario(path: str | Path) -> Scenario:
    """The scenario of the dump at ``path``; ScenarioError with ``file:line`` otherwise."""
    source = str(path)
    return parse_sql_scenario(read_scenario_text(Path(path), source), source)


def parse_sql_scenario(text: str, source: str) -> Scenario:
    """The scenario of the dump ``text``; errors name ``source`` and the line."""
    return _Dump(source).scenario(text)


class _Dump:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(
        self, reason: str, line: int | None, table: str | None = None, column: str | None = None
    ) -> ScenarioError:
        return ScenarioError(reason, file=self.source, line=line, table=table, column=column)

    def scenario(self, text: str) -> Scenario:
        schema = "test"
        tables: list[dict[str, Any]] = []
        for statement in split_statements(text):
            head = statement.text.strip()
            if not head:
                continue
            use = _USE.match(head)
            if use is not None:
                schema = unquoted(use.group(1))
                continue
            kind, temporary = _create_kind(head)
            if kind == "TABLE" and temporary:
                log.warning(
                    "%s:%d: CREATE TEMPORARY TABLE skipped: TiCDC does not replicate "
                    "temporary tables",
                    self.source,
                    statement.line,
                )
            elif kind == "TABLE":
                tables.append(self.table(statement, schema))
            elif kind in _REFUSED_KINDS:
                raise self.fail(f"CREATE {kind} is not supported", statement.line)
        if not tables:
            raise self.fail("no CREATE TABLE in the file", None)
        doc = {"name": Path(self.source).stem, "rows": DEFAULT_ROWS, "tables": tables}
        return scenario_from_doc(doc, self.source)

    def parse(self, statement: Statement, text: str, schema: str) -> Any:
        """The sqlglot tree of one CREATE TABLE without its partition clause."""
        import sqlglot
        from sqlglot import exp
        from sqlglot.errors import SqlglotError

        quiet = logging.getLogger("sqlglot")
        level = quiet.level
        quiet.setLevel(logging.ERROR)  # what it cannot parse becomes a Command, with a warning
        try:
            create = sqlglot.parse_one(text, read="mysql")
        except SqlglotError as err:  # ParseError, or TokenError (a quote never closed)
            self.spatial_column(statement, text, schema)
            errors = getattr(err, "errors", None)
            first = errors[0] if errors else {}
            reason = str(first.get("description") or err).splitlines()[0]
            line = statement.file_line(first.get("line"))
            raise self.fail(f"cannot parse the SQL: {reason}", line) from None
        except Exception as err:  # sqlglot trips on some table options (TypeError seen)
            self.spatial_column(statement, text, schema)
            reason = f"{type(err).__name__}: {err}".splitlines()[0]
            raise self.fail(f"cannot parse this CREATE TABLE ({reason})", statement.line) from None
        finally:
            quiet.setLevel(level)
        if not isinstance(create, exp.Create) or str(create.args.get("kind")).upper() != "TABLE":
            self.spatial_column(statement, text, schema)
            raise self.fail("cannot parse this CREATE TABLE", statement.line)
        return create

    def spatial_column(self, statement: Statement, text: str, schema: str) -> None:
        """A column of a spatial type, which sqlglot does not parse: named as the unknown
        type it is to the generator (and to TiDB), not as a parse error."""
        name = _TABLE_NAME.search(text)
        parts = [unquoted(p) for p in name.group(1).split(".")] if name else []
        table = ".".join([schema, *parts][-2:]) if parts else None
        for offset, part in _column_parts(text):
            found = _PART.match(part)
            if found is None or found.group(1).upper() in _NOT_COLUMNS:
                continue
            kind = found.group(2).lower()
            if kind in _SPATIAL:
                line = statement.line + text.count("\n", 0, offset + found.start(2))
                raise self.fail(
                    f"unknown mysqlType {kind!r}", line, table, unquoted(found.group(1))
                )

    def table(self, statement: Statement, schema: str) -> dict[str, Any]:
        from sqlglot import exp

        cut = partition_clause_at(statement.text)
        text = statement.text if cut is None else statement.text[:cut]
        create = self.parse(statement, text, schema)
        target = create.this
        if not isinstance(target, exp.Schema):
            raise self.fail("CREATE TABLE ... LIKE / AS SELECT is not supported", statement.line)
        name = target.this.name
        schema = target.this.db or schema
        qualified = f"{schema}.{name}"
        line = statement.file_line(_line(target.this))
        columns: list[dict[str, Any]] = []
        primary: list[str] = []
        indexes: list[dict[str, Any]] = []
        lines: dict[str, int | None] = {}
        for part in target.expressions:
            if isinstance(part, exp.ColumnDef):
                lines[part.name] = statement.file_line(_line(part.this))
                column = self.column(part, qualified, lines[part.name])
                columns.append(column)
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
            alone = scenario_from_doc({"tables": [entry]}, self.source)
        except ScenarioError as err:
            where = lines.get(err.column or "") or line
            raise self.fail(err.reason, where, qualified, err.column) from None
        if cut is not None:
            self.partitioned(statement, cut, entry, qualified, alone)
        return entry

    def partitioned(
        self,
        statement: Statement,
        cut: int,
        entry: dict[str, Any],
        table: str,
        scenario: Scenario,
    ) -> None:
        """Check the table's PARTITION BY clause against its columns and unique keys (TiDB's
        rule: every unique key holds every column of the partitioning function), and keep it
        in ``entry`` when rows can be routed (``scenario``: the table alone, for its types);
        otherwise the table is played as one, with a warning saying why."""
        text = statement.text

        def fail(reason: str, offset: int, column: str | None = None) -> NoReturn:
            line = statement.line + text.count("\n", 0, cut + offset)
            raise self.fail(f"PARTITION BY: {reason}", line, table, column)

        partitioning = parse_partitioning(text[cut:], _expression_columns, fail)
        names = {c["name"].lower(): c["name"] for c in entry["columns"]}
        columns = [names.get(c.lower(), c) for c in partitioning.columns]
        for column in columns:
            if column.lower() not in names:
                fail("names a missing column", 0, column)
        unique = [entry.get("primary", [])] + [
            i["columns"] for i in entry.get("indexes", []) if i.get("unique")
        ]
        unique = [key for key in unique if key]
        if not columns:  # KEY(): the primary key's columns
            if not entry.get("primary"):
                fail("KEY() needs a primary key", 0)
            columns = list(entry["primary"])
        for key in unique:
            lowered = {c.lower() for c in key}
            missing = [c for c in columns if c.lower() not in lowered]
            if missing:
                fail(
                    f"unique key ({', '.join(key)}) must include every column of the "
                    f"partitioning function ({', '.join(columns)})",
                    0,
                    missing[0],
                )
        try:
            info = partition_info(partitioning, tuple(columns))
            probe = scenario.tables[0]
            _check_collations(text[:cut], probe, info.columns)
            TableInfo(
                probe.schema, probe.name, 0, 0, tuple(c.column for c in probe.columns), (), info
            )
        except (Unroutable, SchemaError) as err:
            log.warning(
                "%s:%d: table %s is partitioned (%s, %d partitions) but played as one table, "
                "its rows with the table's id: %s",
                self.source,
                statement.line,
                table,
                partitioning.kind,
                partitioning.count,
                str(err).removeprefix(f"table {table}: "),
            )
            return
        log.info(
            "%s:%d: table %s is partitioned (%s, %d partitions): each row carries the id of "
            "its partition",
            self.source,
            statement.line,
            table,
            partitioning.kind,
            partitioning.count,
        )
        entry["partition"] = info

    def column(self, part: Any, table: str, line: int | None) -> dict[str, Any]:
        from sqlglot import exp

        name = part.name
        kind = part.args.get("kind")
        if kind is None:
            raise self.fail("a column needs a type", line, table, name)
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
                formula = rule.this.unnest().sql("mysql")
                raise self.fail(
                    f"a generated column (AS ({formula})) is not supported: "
                    "the generator draws each column on its own, so its values would not "
                    "follow the expression",
                    line,
                    table,
                    name,
                )
            elif isinstance(rule, exp.DefaultColumnConstraint):
                default = rule.this
                if isinstance(default, exp.Literal):
                    column["default"] = default.this
        return column


def _create_kind(head: str) -> tuple[str | None, bool]:
    """What a statement creates (TABLE, VIEW, PROCEDURE...; None if it is no CREATE) and
    whether it is TEMPORARY: the words after CREATE past OR REPLACE, DEFINER = ..., etc."""
    words = [m.group() for m in _HEAD.finditer(head, 0, 400)]
    if not words or words[0].upper() != "CREATE":
        return None, False
    temporary = False
    at = 1
    while at < len(words):
        word = words[at].upper()
        if word in _ASSIGNED:  # DEFINER = `u`@`h`, ALGORITHM = MERGE
            at += 3
            while at < len(words) and words[at] in ("@", "("):  # `u`@`h`, CURRENT_USER()
                at += 2
        elif word == "SQL":  # SQL SECURITY DEFINER
            at += 3
        elif word in _TEMPORARY:
            temporary = True
            at += 1
        elif word in _MODIFIERS:
            at += 1
        else:
            return word, temporary
    return None, temporary


def _column_parts(text: str) -> list[tuple[int, str]]:
    """The comma-separated parts inside the first parentheses of ``text`` (a CREATE TABLE's
    columns and keys), each with its offset."""
    parts: list[tuple[int, str]] = []
    depth, begin = 0, 0
    for found in _BODY.finditer(text):
        piece = found.group()
        if piece == "(":
            depth += 1
            if depth == 1:
                begin = found.end()
        elif piece == ")":
            depth -= 1
            if depth == 0:
                parts.append((begin, text[begin : found.start()]))
                return parts
        elif piece == "," and depth == 1:
            parts.append((begin, text[begin : found.start()]))
            begin = found.end()
    return parts


def _check_collations(text: str, table: TableSpec, columns: tuple[str, ...]) -> None:
    """Unroutable when a text partitioning column may sort under a collation the router does
    not follow: the generator writes text columns as utf8mb4_bin, but TiDB routes the table's
    rows by the collation the dump declares (for the column or the table)."""
    text_columns = [
        c.column.name
        for c in table.columns
        if c.column.name in columns and c.column.family is TypeFamily.STRING
    ]
    if not text_columns:
        return
    declared = {found.lower() for found in _COLLATE.findall(text)}
    odd = sorted(declared - set(ROUTED_COLLATIONS))
    if odd:
        raise Unroutable(
            f"column {text_columns[0]!r}: TiDB routes its text under the declared collation "
            f"{odd[0]}, which the router does not follow"
        )


_COLLATE = re.compile(r"\bCOLLATE\s*=?\s*[`'\"]?(\w+)", re.I)


def _expression_columns(expression: str) -> list[str]:
    """The columns a partitioning expression reads; ValueError if sqlglot cannot parse it."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(expression, read="mysql")
    except SqlglotError as err:
        raise ValueError(str(err)) from None
    return list(dict.fromkeys(column.name for column in tree.find_all(exp.Column)))


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
