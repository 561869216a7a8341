"""``tisink check``: compare a consumer's database with the state a change feed implies."""

from __future__ import annotations

import contextlib
import logging

from tisink.check.compare import compare_table
from tisink.check.database import Database, Location
from tisink.check.errors import CheckError
from tisink.check.expected import applied_feed
from tisink.check.naming import match_tables
from tisink.check.options import CheckOptions
from tisink.check.plan import plan_table
from tisink.check.report import CheckReport, TableResult
from tisink.check.schemas import meta_types
from tisink.check.urls import DatabaseURL
from tisink.sink.uri import mask_uri

log = logging.getLogger(__name__)


def check(options: CheckOptions) -> CheckReport:
    """Compare; CheckError when a database cannot be opened or read, or the expected side
    has nothing to compare (an empty database, a ``--table`` that matches no table)."""
    actual_url = DatabaseURL.parse(options.actual)
    if options.expected.url is not None:
        DatabaseURL.parse(options.expected.url)  # a bad URL fails before a feed is played
    report = CheckReport(
        mask_uri(options.expected.label), actual_url.masked, options.max_differences
    )
    with contextlib.ExitStack() as stack:
        expected = stack.enter_context(applied_feed(options.expected))
        expected_db = stack.enter_context(Database(DatabaseURL.parse(expected.url)))
        actual_db = stack.enter_context(Database(actual_url))
        types = {**expected.types, **meta_types(expected_db)}
        expected_tables, actual_tables = expected_db.tables(), actual_db.tables()
        if not expected_tables:
            raise CheckError(
                f"{report.expected}: the expected side holds no tables (tidb_cdc aside): "
                "nothing to compare; is the URL right?"
            )
        if unmatched := options.naming.unmatched(expected_tables):
            raise CheckError(f"--table {', '.join(unmatched)}: no such table on the expected side")
        matching = match_tables(expected_tables, actual_tables, options.naming)
        report.extra_tables = matching.extra
        databases = (expected_db, actual_db)
        for name, actual_name in matching.pairs:
            if actual_name is None:
                report.tables.append(_missing(expected_db, name, expected_tables))
                continue
            where = (expected_tables[name], actual_tables[actual_name])
            plan = plan_table(
                name,
                actual_name,
                where,
                databases,
                types.get(name),
                strict_column_order=options.strict_column_order,
            )
            report.tables.append(compare_table(plan, databases, report, options.chunk_rows))
            log.info("compared %s", name)
    return report


def _missing(db: Database, name: str, tables: dict[str, Location]) -> TableResult:
    """A table the actual side lacks; its expected rows are counted, not listed."""
    result = TableResult(name, None, "none", actual_rows=None)
    result.expected_rows = db.count_rows(tables[name])
    return result
