"""The Simple Protocol documentation example's table and commit ts, as feed records (the
``simple.user`` / ``simple.new_user`` rows of ``golden/docs-examples``)."""

from __future__ import annotations

DOCS_INSERT_TS = 447984084414103554
DOCS_UPDATE_TS = 447984099186180098
DOCS_DELETE_TS = 447984114259722243
DOCS_TABLE_ID = 148


def docs_row(commit_ts: int, op: str, **images: dict) -> dict:
    """A feed ``row`` record of the docs' table."""
    record = {"type": "row", "commitTs": commit_ts, "startTs": commit_ts - 3}
    return {**record, "tableID": DOCS_TABLE_ID, "op": op, **images}
