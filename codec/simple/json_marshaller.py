"""The Simple Protocol JSON marshaller (``encoding-format=json``, spec 1 and 2).

Messages are Go ``json.Marshal`` bytes of TiCDC's ``message`` struct: fields in declaration
order, ``omitempty`` fields left out when empty (``database``, ``table``, ``tableID``, ``sql``,
``schemaVersion``, ``claimCheckLocation``, ``handleKeyOnly``, ``checksum``, ``data``, ``old``,
``tableSchema``, ``preTableSchema``), ``commitTs`` and ``buildTs`` always present. ``checksum``
is written whenever the row carries one; the encoder drops it unless ``enable-row-checksum``
and computes it (``codec/checksum.py``) for a row that brings none when it is on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from tisink.codec.errors import CodecError
from tisink.codec.gojson import go_dumps
from tisink.codec.renderer_cache import RendererCache
from tisink.codec.simple.json_rows import RENDER_ERRORS, JSONRowRenderer
from tisink.codec.simple.json_schema import drops_pre_table_schema, table_schema
from tisink.codec.values import zone_for
from tisink.model.events import DDLEvent, RowChangedEvent, RowChecksum
from tisink.model.table import TableInfo

_INSERT = b',"type":"INSERT","commitTs":%d,"buildTs":%d'
_UPDATE = b',"type":"UPDATE","commitTs":%d,"buildTs":%d'
_DELETE = b',"type":"DELETE","commitTs":%d,"buildTs":%d'


def _checksum(checksum: RowChecksum) -> bytes:
    return go_dumps(
        {
            "version": checksum.version,
            "corrupted": checksum.corrupted,
            "current": checksum.current,
            "previous": checksum.previous,
        }
    )


def _schema_fragment(table: TableInfo, newarch: bool = True) -> orjson.Fragment:
    return orjson.Fragment(go_dumps(table_schema(table, newarch)))


class JSONMarshaller:
    """Implements ``codec.simple.marshaller.Marshaller`` for JSON.

    Row renderers and serialised ``tableSchema`` objects are built once per table version
    (``RendererCache``), so the per-row path never rebuilds anything.
    """

    def __init__(self, time_zone: str | None = None, *, newarch: bool = True) -> None:
        self._zone_name, self._tz = zone_for(time_zone)
        self._newarch = newarch
        """ticdc's bytes, else tiflow's: ``preTableSchema`` and the ``tableSchema`` column
        order differ (README.md)."""
        self._renderers = RendererCache(self._new_renderer, "simple")
        self._schemas = RendererCache(
            lambda table: _schema_fragment(table, newarch), "simple schema"
        )

    @property
    def zone_name(self) -> str:
        """The ``location`` written in timestamp values."""
        return self._zone_name

    def _new_renderer(self, table: TableInfo) -> JSONRowRenderer:
        return JSONRowRenderer(table, self._tz, self._zone_name)

    def renderer(self, table: TableInfo) -> JSONRowRenderer:
        return self._renderers.get(table)

    def marshal_row(
        self,
        row: RowChangedEvent,
        build_ts: int,
        *,
        handle_key_only: bool = False,
        claim_check_location: str | None = None,
    ) -> bytes:
        renderer = self._renderers.get(row.table)
        if not (handle_key_only or claim_check_location or row.checksum is not None):
            dml = renderer.dml
            if dml is not None and row.physical_table_id:
                try:
                    return dml(row, renderer.heads(row.physical_table_id, row.commit_ts, build_ts))
                except RENDER_ERRORS:
                    pass  # the general path below names the failing column, or repairs strings
        return self._marshal_row(renderer, row, build_ts, handle_key_only, claim_check_location)

    def marshal_rows(self, rows: Sequence[RowChangedEvent], build_ts: int) -> list[bytes]:
        """Plain rows go straight to their table's generated ``dml``, with message heads made
        once per tableID and commitTs (a transaction); any other row, or one ``dml`` refuses,
        takes ``marshal_row`` (which names the failing column)."""
        out: list[bytes] = []
        append = out.append
        table = dml = renderer = heads = None
        table_id = commit_ts = 0
        for row in rows:
            if row.table is not table:
                table = row.table
                renderer = self._renderers.get(table)
                dml, table_id = renderer.dml, 0
            if dml is not None and row.checksum is None and row.physical_table_id:
                if row.physical_table_id != table_id or row.commit_ts != commit_ts:
                    table_id, commit_ts = row.physical_table_id, row.commit_ts
                    heads = renderer.heads(table_id, commit_ts, build_ts)  # type: ignore[union-attr]
                try:
                    append(dml(row, heads))  # type: ignore[arg-type]  # heads set with table_id
                    continue
                except RENDER_ERRORS:
                    pass
            append(self.marshal_row(row, build_ts))
        return out

    @staticmethod
    def _marshal_row(
        renderer: JSONRowRenderer,
        row: RowChangedEvent,
        build_ts: int,
        handle_key_only: bool,
        claim_check_location: str | None,
    ) -> bytes:
        """Any DML message, field by field: the reference the generated ``dml`` follows."""
        before, after = row.before, row.after
        parts = [renderer.prefix]
        if row.physical_table_id:
            parts.append(b',"tableID":%d' % row.physical_table_id)
        op = _INSERT if before is None else _DELETE if after is None else _UPDATE
        parts.append(op % (row.commit_ts, build_ts))
        parts.append(renderer.schema_version)
        try:
            if claim_check_location:
                parts.append(b',"claimCheckLocation":' + go_dumps(claim_check_location))
            if handle_key_only:
                parts.append(b',"handleKeyOnly":true')
            if row.checksum is not None:
                parts.append(b',"checksum":' + _checksum(row.checksum))
            if after is not None and (data := renderer.render(after, handle_key_only)):
                parts.append(b',"data":' + go_dumps(data))
            if before is not None and (old := renderer.render(before, handle_key_only)):
                parts.append(b',"old":' + go_dumps(old))
        except orjson.JSONEncodeError as err:
            raise CodecError(f"cannot marshal {row.describe()} as JSON: {err}") from err
        parts.append(b"}")
        return b"".join(parts)

    def marshal_ddl(self, ddl: DDLEvent, build_ts: int) -> bytes:
        if ddl.is_bootstrap:
            if ddl.table is None:
                raise CodecError("a BOOTSTRAP event needs a table schema")
            message: dict[str, Any] = {
                "version": 1,
                "type": "BOOTSTRAP",
                "commitTs": 0,
                "buildTs": build_ts,
                "tableSchema": self._schema(ddl.table),
            }
            return self._dumps(message, ddl.describe)
        message = {"version": 1, "type": ddl.ddl_type.value}
        if ddl.query:
            message["sql"] = ddl.query
        message["commitTs"] = ddl.commit_ts
        message["buildTs"] = build_ts
        if ddl.table is not None:
            message["tableSchema"] = self._schema(ddl.table)
        # tiflow writes the table before the DDL (``PreTableInfo``) whenever there is one;
        # ticdc only for a DDL event holding two table infos (``drops_pre_table_schema``).
        if ddl.pre_table is not None and not drops_pre_table_schema(self._newarch):
            message["preTableSchema"] = self._schema(ddl.pre_table)
        return self._dumps(message, ddl.describe)

    def marshal_checkpoint(self, ts: int, build_ts: int) -> bytes:
        return go_dumps({"version": 1, "type": "WATERMARK", "commitTs": ts, "buildTs": build_ts})

    def _schema(self, table: TableInfo) -> orjson.Fragment:
        return self._schemas.get(table)

    @staticmethod
    def _dumps(message: dict[str, Any], describe: Any) -> bytes:
        try:
            return go_dumps(message)
        except orjson.JSONEncodeError as err:
            raise CodecError(f"cannot marshal {describe()} as JSON: {err}") from err
