"""The catalogue queries MySQL and PostgreSQL answer alike, from SQL's ``information_schema``."""

from __future__ import annotations

from tisink.eventsink.sql.dialect import Cursor, Dialect


class InformationSchemaDialect(Dialect):
    """A dialect whose server has ``information_schema`` (SQLite has not)."""

    def table_exists(self, cur: Cursor, schema: str, table: str) -> bool:
        cur.execute(
            "SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = %s",
            (schema, table),
        )
        return bool(cur.fetchall())

    def column_names(self, cur: Cursor, schema: str, table: str) -> list[str]:
        cur.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position",
            (schema, table),
        )
        return [row[0] for row in cur.fetchall()]
