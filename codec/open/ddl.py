"""DDL events: key ``{"ts":..,"scm":..,"tbl":..,"t":2}``, value ``{"q":query,"t":action}``.

The value's ``t`` is TiDB's ``ActionType``. The feed names DDLs with the Simple Protocol's
types, which group TiDB's actions; the action is recovered from the type and the statement
(ADD COLUMN, DROP PRIMARY KEY, CREATE DATABASE, ...). An ALTER whose statement names none of
the clauses below is reported as ModifyColumn (12).
"""

from __future__ import annotations

import re

from tisink.model.events import DDLEvent, DDLType

DDL_TYPE = 2

CREATE_SCHEMA, DROP_SCHEMA, CREATE_TABLE, DROP_TABLE = 1, 2, 3, 4
ADD_COLUMN, DROP_COLUMN, ADD_INDEX, DROP_INDEX = 5, 6, 7, 8
ADD_FOREIGN_KEY, DROP_FOREIGN_KEY, TRUNCATE_TABLE, MODIFY_COLUMN = 9, 10, 11, 12
RENAME_TABLE, SET_DEFAULT_VALUE, MODIFY_TABLE_COMMENT, RENAME_INDEX = 14, 15, 17, 18
ADD_PARTITION, DROP_PARTITION, CREATE_VIEW, MODIFY_CHARSET = 19, 20, 21, 22
TRUNCATE_PARTITION, DROP_VIEW, MODIFY_SCHEMA_CHARSET = 23, 24, 26
ADD_PRIMARY_KEY, DROP_PRIMARY_KEY = 32, 33

_FLAGS = re.IGNORECASE | re.DOTALL
_ALTER_CLAUSES: tuple[tuple[re.Pattern[str], int], ...] = tuple(
    (re.compile(pattern, _FLAGS), action)
    for pattern, action in (
        (r"\bADD\s+PARTITION\b", ADD_PARTITION),
        (r"\bDROP\s+PARTITION\b", DROP_PARTITION),
        (r"\bTRUNCATE\s+PARTITION\b", TRUNCATE_PARTITION),
        (r"\bRENAME\s+(?:INDEX|KEY)\b", RENAME_INDEX),
        (r"\bALTER\s+(?:COLUMN\s+)?\S+\s+(?:SET|DROP)\s+DEFAULT\b", SET_DEFAULT_VALUE),
        (r"\bADD\s+(?:COLUMN\b|\()", ADD_COLUMN),
        (r"\bDROP\s+COLUMN\b", DROP_COLUMN),
        (r"\b(?:MODIFY|CHANGE)\b", MODIFY_COLUMN),
        (r"\bCOMMENT\b", MODIFY_TABLE_COMMENT),
        (r"\b(?:CHARACTER\s+SET|CHARSET|COLLATE)\b", MODIFY_CHARSET),
        (r"\bADD\s+(?!INDEX|KEY|UNIQUE|PRIMARY|CONSTRAINT|FOREIGN|FULLTEXT|SPATIAL)\S", ADD_COLUMN),
        (r"\bDROP\s+(?!INDEX|KEY|PRIMARY|FOREIGN|CONSTRAINT|CHECK)\S", DROP_COLUMN),
    )
)
_QUERIES: tuple[tuple[re.Pattern[str], int], ...] = tuple(
    (re.compile(r"\s*(?:/\*.*?\*/\s*)*" + pattern, _FLAGS), action)
    for pattern, action in (
        (r"CREATE\s+(?:DATABASE|SCHEMA)\b", CREATE_SCHEMA),
        (r"DROP\s+(?:DATABASE|SCHEMA)\b", DROP_SCHEMA),
        (r"ALTER\s+(?:DATABASE|SCHEMA)\b", MODIFY_SCHEMA_CHARSET),
        (
            r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:\w+\s*=\s*\S+\s+|SQL\s+SECURITY\s+\w+\s+)*VIEW\b",
            CREATE_VIEW,
        ),
        (r"DROP\s+VIEW\b", DROP_VIEW),
    )
)
_SCHEMA_NAME = re.compile(
    r"\s*(?:/\*.*?\*/\s*)*(?:CREATE|DROP|ALTER)\s+(?:DATABASE|SCHEMA)\s+"
    r"(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(`(?:[^`]|``)*`|[\w$]+)",
    _FLAGS,
)
_PRIMARY = re.compile(r"\bPRIMARY\s+KEY\b", _FLAGS)
_FOREIGN = re.compile(r"\bFOREIGN\s+KEY\b", _FLAGS)
_FIXED = {
    DDLType.CREATE: CREATE_TABLE,
    DDLType.ERASE: DROP_TABLE,
    DDLType.TRUNCATE: TRUNCATE_TABLE,
    DDLType.RENAME: RENAME_TABLE,
}


_DDL_TYPE_NAMES = {3: "CREATE", 4: "ERASE", 11: "TRUNCATE", 14: "RENAME", 7: "CINDEX", 32: "CINDEX"}
_DDL_TYPE_NAMES |= {8: "DINDEX", 33: "DINDEX", 9: "CINDEX", 10: "DINDEX"}


def ddl_type_name(action: int, has_table: bool) -> str:
    """The Simple Protocol DDL type a consumer reads from TiDB's ActionType ``action``: the
    group it belongs to, else ALTER for a table's DDL and QUERY for another."""
    return _DDL_TYPE_NAMES.get(action, "ALTER" if has_table else "QUERY")


def action_type(ddl: DDLEvent) -> int:
    """TiDB's ActionType of ``ddl`` (0, ActionNone, for a QUERY it cannot name)."""
    kind, query = ddl.ddl_type, ddl.query
    if kind in _FIXED:
        return _FIXED[kind]
    if kind is DDLType.CINDEX:
        if _FOREIGN.search(query):
            return ADD_FOREIGN_KEY
        return ADD_PRIMARY_KEY if _PRIMARY.search(query) else ADD_INDEX
    if kind is DDLType.DINDEX:
        if _FOREIGN.search(query):
            return DROP_FOREIGN_KEY
        return DROP_PRIMARY_KEY if _PRIMARY.search(query) else DROP_INDEX
    if kind is DDLType.ALTER:
        for pattern, action in _ALTER_CLAUSES:
            if pattern.search(query):
                return action
        return MODIFY_COLUMN
    for pattern, action in _QUERIES:
        if pattern.match(query):
            return action
    return 0


def ddl_names(ddl: DDLEvent) -> tuple[str, str]:
    """``scm`` and ``tbl``: the table after the DDL, else before it; for a DDL without one,
    the database a CREATE/DROP/ALTER DATABASE names (else empty)."""
    subject = ddl.table or ddl.pre_table
    if subject is not None:
        return subject.schema, subject.table
    match = _SCHEMA_NAME.match(ddl.query)
    if match is None:
        return "", ""
    name = match.group(1)
    return (name[1:-1].replace("``", "`") if name.startswith("`") else name), ""
