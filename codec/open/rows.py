"""Per-table renderers of Row Changed events: the key JSON and the value JSON of one row.

Built once per table version (``OpenEncoder.renderer``): column specs, converters, the key's
fixed names and the compiled value writers; the handle-key-only writer of the large-message
fallback is compiled when first needed.
"""

from __future__ import annotations

import datetime

import orjson

from tisink.codec.debezium.jsonwriter import quote
from tisink.codec.errors import CodecError
from tisink.codec.open import classic
from tisink.codec.open.codegen import Shape, ValueWriter, compile_value_writer
from tisink.codec.open.columns import column_specs
from tisink.codec.open.options import OpenOptions
from tisink.codec.open.values import converter_for
from tisink.codec.values.checks import VALUE_ERRORS, failing_column
from tisink.model.events import RowChangedEvent
from tisink.model.table import TableInfo

RENDER_ERRORS = (*VALUE_ERRORS, orjson.JSONEncodeError)
ROW_TYPE = 1


class RowRenderer:
    """Key and value bytes of rows of one table version."""

    __slots__ = (
        "_classic",
        "_converters",
        "_handle",
        "_names",
        "_shapes",
        "_specs",
        "_tz",
        "_writers",
        "key_tail",
        "table",
        "value",
    )

    def __init__(self, table: TableInfo, tz: datetime.tzinfo, options: OpenOptions) -> None:
        self.table = table
        self._classic = not options.newarch
        """tiflow's bytes (``classic.py``): its key, its column order and escapes."""
        self._specs = column_specs(table, options.newarch)
        self._tz = tz
        self._converters = tuple(converter_for(s.column, tz) for s in self._specs)
        self._names = b',"scm":%s,"tbl":%s,"t":%d' % (
            quote(table.schema),
            quote(table.table),
            ROW_TYPE,
        )
        self.key_tail: bytes | None = self._names + b"}"
        """The key after its ``ts`` for a row of the table itself (no ``ptn``); None when
        every row has its own key (tiflow's ``rid``)."""
        self._handle = classic.int_handle(table) if self._classic else None
        """tiflow's ``rid`` column (``classic.int_handle``)."""
        if self._classic:
            whole = classic.row_key(0, table.schema, table.table, None)
            self.key_tail = None if self._handle else whole[len(b'{"ts":0') :]
        every = tuple(range(len(self._specs)))
        keys = tuple(i for i, s in enumerate(self._specs) if s.handle)
        old, only_updated = options.output_old_value, options.only_output_updated_columns
        deleted = keys if options.delete_only_handle_key_columns else every
        self._shapes = {
            False: Shape(every, deleted, old, only_updated),
            True: Shape(keys, keys, old, only_updated),
        }
        self._writers: dict[tuple[bool, bool], ValueWriter] = {}
        self.value: ValueWriter = self._writer(False, False) if every and deleted else self.render
        """``value(row) -> bytes`` with every column; raises one of ``RENDER_ERRORS`` on a bad
        image (``render`` names the column). A table whose DELETEs would have no column
        renders through ``render``, which raises ticdc's error."""
        if self._classic:
            ticdc_value = self.value
            self.value = lambda row: classic.value(ticdc_value(row))

    def _writer(self, handle_key_only: bool, repairing: bool) -> ValueWriter:
        writer = self._writers.get((handle_key_only, repairing))
        if writer is None:
            shape = self._shapes[handle_key_only]
            writer = compile_value_writer(self._specs, self._converters, shape, self._tz, repairing)
            self._writers[handle_key_only, repairing] = writer
        return writer

    def key(
        self, row: RowChangedEvent, handle_key_only: bool = False, claim_check: str = ""
    ) -> bytes:
        """``{"ts":..,"scm":..,"tbl":..,"t":1}`` and, as ticdc writes them after ``t``:
        ``"ohk":true`` for a handle-key-only value, ``"ohk":false,"ccl":..`` for a claim-check
        location (ticdc writes both ``ohk`` then), ``"ptn"`` for a partition's row; tiflow's
        (``classic.row_key``) otherwise."""
        if self._classic:
            partition = row.physical_table_id
            rid = 0
            if self._handle is not None:
                image = row.before if row.after is None else row.after
                value = None if image is None else image.get(self._handle)
                rid = 0 if value is None else classic.row_id(value)
            return classic.row_key(
                row.commit_ts,
                self.table.schema,
                self.table.table,
                None if partition == self.table.table_id else partition,
                handle_key_only,
                claim_check,
                rid,
            )
        key = b'{"ts":%d%b' % (row.commit_ts, self._names)
        if handle_key_only:
            key += b',"ohk":true'
        if claim_check:
            key += b',"ohk":false,"ccl":' + quote(claim_check)
        if row.physical_table_id != self.table.table_id:
            key += b',"ptn":%d' % row.physical_table_id
        return key + b"}"

    def render(self, row: RowChangedEvent, handle_key_only: bool = False) -> bytes:
        """The value JSON of ``row``; CodecError names the table and the column."""
        rendered = self._render(row, handle_key_only)
        return classic.value(rendered) if self._classic else rendered

    def _render(self, row: RowChangedEvent, handle_key_only: bool) -> bytes:
        """ticdc's value JSON of ``row``."""
        shape = self._shapes[handle_key_only]
        if not shape.main or (row.after is None and not shape.deleted):
            raise CodecError(
                f"{row.describe()}: not found handle key columns for the "
                f"{row.op.value.lower()} event (table {self.table.qualified_name} has none)"
            )
        try:
            return self._writer(handle_key_only, False)(row)
        except RENDER_ERRORS as err:
            failure = self._failure(row)
            if failure is not None:
                raise failure from err
            try:  # every value converts: orjson refused a lone surrogate
                return self._writer(handle_key_only, True)(row)
            except RENDER_ERRORS as again:
                raise CodecError(f"{row.describe()}: cannot render the row: {again}") from again

    def _failure(self, row: RowChangedEvent) -> CodecError | None:
        """The first column that fails on its own, as an error naming it."""
        columns = [
            (spec.column, convert)
            for spec, convert in zip(self._specs, self._converters, strict=True)
        ]
        where = f"table {self.table.qualified_name}"
        return failing_column(where, (row.after, row.before), columns, RENDER_ERRORS)
