"""The event router: which topic and partition a row or DDL goes to (TiCDC ``EventRouter``).

Rules are tried in order and the first whose matcher accepts the table wins; an implicit last
rule ``*.*`` sends everything else to the default topic with the ``default`` (table)
dispatcher. Matching rules and topics are cached per table name, bound partitioners per table
schema version, and both per TableInfo object, so routing a row costs a dict lookup and its
hash.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tisink.codec.values import zone_for
from tisink.core.errors import ConfigError
from tisink.eventsink.router.bulk import BulkPartitioner, integer_partitioner
from tisink.eventsink.router.errors import DispatchError, RouterError
from tisink.eventsink.router.filter import TableFilter
from tisink.eventsink.router.partition import (
    PartitionDispatcher,
    RowPartitioner,
    partition_dispatcher,
)
from tisink.eventsink.router.topic import TopicGenerator, topic_generator
from tisink.model.events import DDLEvent, RowChangedEvent
from tisink.model.table import TableInfo


@dataclass(frozen=True)
class DispatchRule:
    """One ``[[sink.dispatchers]]`` entry, with TiCDC's key names."""

    matcher: tuple[str, ...]
    topic: str = ""
    partition: str = "default"
    index: str = ""
    columns: tuple[str, ...] = ()


IMPLICIT_RULE = DispatchRule(matcher=("*.*",))


@dataclass(frozen=True, slots=True)
class _CompiledRule:
    rule: DispatchRule
    position: int
    filter: TableFilter
    topic: TopicGenerator
    partition: PartitionDispatcher


class _Route:
    """What a row of one TableInfo object needs: its topic, and its partitioner once bound
    (lazily, so a dispatcher that does not fit the table fails only rows that need it)."""

    __slots__ = ("partitioner", "table", "topic")

    def __init__(self, table: TableInfo, topic: str) -> None:
        self.table = table
        self.topic = topic
        self.partitioner: RowPartitioner | None = None


# Routes are cached by TableInfo object; a source that builds a new TableInfo per row would
# grow the cache without bound, so it is cleared past this size.
_MAX_ROUTES = 4096


class EventRouter:
    """Routes rows and DDL of tables to topics and partitions by the dispatch rules.

    ``time_zone`` is the zone timestamp values are hashed in: TiCDC hashes the row as it decoded
    it, in its own time zone, which is the one the encoders render (EncoderConfig.time_zone;
    None means the process's zone).
    """

    def __init__(
        self,
        default_topic: str,
        rules: Sequence[DispatchRule] = (),
        *,
        case_sensitive: bool = False,
        time_zone: str | None = None,
        avro_topic_rules: bool = False,
    ) -> None:
        self.default_topic = default_topic
        self.case_sensitive = case_sensitive
        self.avro_topic_rules = avro_topic_rules
        self._time_zone = time_zone
        try:
            self._zone = zone_for(time_zone)[1]
        except ConfigError as err:
            raise RouterError(f"event router: {err}") from err
        self.rules = (*rules, IMPLICIT_RULE)
        self._compiled = tuple(self._compile(pos, rule) for pos, rule in enumerate(self.rules))
        self._by_name: dict[tuple[str, str], tuple[_CompiledRule, str]] = {}
        self._partitioners: dict[tuple[int, int, str, str], RowPartitioner] = {}
        self._routes: dict[int, _Route] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the settings, not the caches (their partitioners are closures): encoder
        processes build their own router from them."""
        return (
            _rebuild,
            (
                self.default_topic,
                self.rules[:-1],
                self.case_sensitive,
                self._time_zone,
                self.avro_topic_rules,
            ),
        )

    def _compile(self, position: int, rule: DispatchRule) -> _CompiledRule:
        where = f"dispatch rule #{position + 1} (matcher {list(rule.matcher)})"
        if position == len(self.rules) - 1:
            where = "the implicit dispatch rule *.*"
        try:
            return _CompiledRule(
                rule=rule,
                position=position,
                filter=TableFilter(rule.matcher, case_sensitive=self.case_sensitive),
                topic=topic_generator(rule.topic, self.default_topic, avro=self.avro_topic_rules),
                partition=partition_dispatcher(
                    rule.partition, rule.index, rule.columns, self._zone
                ),
            )
        except RouterError as err:
            raise type(err)(f"{where}: {err}") from err

    def rule_for(self, schema: str, table: str) -> DispatchRule:
        """The first rule whose matcher accepts the table (the implicit one at worst)."""
        return self._match(schema, table)[0].rule

    def _match(self, schema: str, table: str) -> tuple[_CompiledRule, str]:
        """The matching rule and the table's topic, cached per (schema, table) name."""
        key = (schema, table)
        found = self._by_name.get(key)
        if found is None:
            compiled = next(c for c in self._compiled if c.filter.match_table(schema, table))
            found = (compiled, compiled.topic.substitute(schema, table))
            self._by_name[key] = found
        return found

    def _route(self, table: TableInfo) -> _Route:
        route = self._routes.get(id(table))
        if route is None or route.table is not table:
            if len(self._routes) >= _MAX_ROUTES:
                self._routes.clear()
            route = _Route(table, self._match(table.schema, table.table)[1])
            self._routes[id(table)] = route
        return route

    def topic_for_table(self, schema: str, table: str) -> str:
        return self._match(schema, table)[1]

    def topic_for_row(self, row: RowChangedEvent) -> str:
        return self._route(row.table).topic

    def topic_for_ddl(self, ddl: DDLEvent) -> str:
        """The table before the DDL names the topic (so a RENAME goes where the old rows went);
        DDL without a table, such as CREATE DATABASE, goes to the default topic."""
        subject = ddl.pre_table or ddl.table
        if subject is None or not subject.table:
            return self.default_topic
        return self.topic_for_table(subject.schema, subject.table)

    def partitioner(self, table: TableInfo) -> RowPartitioner:
        """``table``'s bound partitioner, for a caller that dispatches many rows of one table
        itself (to a topic it knows has partitions)."""
        route = self._route(table)
        partitioner = route.partitioner
        if partitioner is None:
            partitioner = route.partitioner = self._partitioner(table)
        return partitioner

    def partition_for_row(self, row: RowChangedEvent, partition_num: int) -> int:
        route = self._route(row.table)
        partitioner = route.partitioner
        if partitioner is None:  # inline, not ``partitioner()``: one call less on a hot path
            partitioner = route.partitioner = self._partitioner(row.table)
        if partition_num <= 0:
            raise RouterError(
                f"table {row.table.qualified_name}: topic {route.topic!r} has "
                f"{partition_num} partitions"
            )
        return partitioner(row, partition_num)

    def partitions_for_rows(self, rows: Sequence[RowChangedEvent], partition_num: int) -> list[int]:
        """``partition_for_row`` of each row; a run of rows of one TableInfo (a transaction)
        looks its partitioner up once."""
        if len(rows) <= 1:  # most transactions of a partition owner's view
            return [self.partition_for_row(row, partition_num) for row in rows]
        table = rows[0].table
        if any(row.table is not table for row in rows):
            return [self.partition_for_row(row, partition_num) for row in rows]
        first = self.partition_for_row(rows[0], partition_num)  # binds, checks partition_num
        if partition_num == 1:  # a topic of one partition (a Spark partition owner's view)
            return [first] * len(rows)
        partitioner = self._route(table).partitioner
        assert partitioner is not None
        return [partitioner(row, partition_num) for row in rows]

    def image_columns(self, table: TableInfo) -> tuple[str, ...] | None:
        """The columns of a row's image that ``partition_for_row`` reads for ``table``, or
        None when it reads more than the image (the commit timestamp: ``ts``). A row whose
        partition must be known before its other values are (a Spark task generating only its
        own rows) can be routed by an image holding these alone."""
        return self._match(table.schema, table.table)[0].partition.image_columns(table)

    def bulk_partitioner(self, table: TableInfo) -> BulkPartitioner | None:
        """``table``'s partitioner over many rows at once, when its dispatcher hashes one
        integer column alone (``bulk``): the values of that column in, partitions out."""
        columns = self.image_columns(table)
        if columns is None or len(columns) != 1:
            return None
        return integer_partitioner(table, columns[0])

    def check_table(self, table: TableInfo) -> None:
        """Bind ``table``'s partition dispatcher now: DispatchError (a ``columns`` dispatcher
        naming a column the table lacks) when its DDL arrives, not at its first row."""
        self._partitioner(table)

    def _partitioner(self, table: TableInfo) -> RowPartitioner:
        """Bound once per (table id, schema version, name), shared by equal TableInfo copies."""
        key = (table.table_id, table.version, table.schema, table.table)
        partitioner = self._partitioners.get(key)
        if partitioner is None:
            partitioner = self._partitioners[key] = self._bind(table)
        return partitioner

    def _bind(self, table: TableInfo) -> RowPartitioner:
        compiled = self._match(table.schema, table.table)[0]
        try:
            return compiled.partition.bind(table)
        except DispatchError as err:
            raise DispatchError(f"dispatch rule #{compiled.position + 1}: {err}") from err

    def active_topics(self, tables: Iterable[TableInfo]) -> list[str]:
        """Topics of the tables plus the default topic, de-duplicated in first-seen order: the
        topics a WATERMARK goes to."""
        topics = dict.fromkeys(self.topic_for_table(t.schema, t.table) for t in tables)
        topics.setdefault(self.default_topic)
        return list(topics)


def _rebuild(
    default_topic: str,
    rules: Sequence[DispatchRule],
    case_sensitive: bool,
    time_zone: str | None,
    avro_topic_rules: bool,
) -> EventRouter:
    return EventRouter(
        default_topic,
        rules,
        case_sensitive=case_sensitive,
        time_zone=time_zone,
        avro_topic_rules=avro_topic_rules,
    )
