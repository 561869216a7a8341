"""The Flink side of ``test_flink_consumer.py``: runs in a PyFlink environment, not tisink's.

Reads, for each table of a spec file, a directory of Debezium JSON values with Flink's
``debezium-json`` format (filesystem connector, parallelism 1, the spec's format options) and
prints one JSON line per changelog row: ``{"table": i, "kind": "+I", "values": [...]}``, every
value cast to STRING by Flink (BYTES decoded as ISO-8859-1, one character per byte).

    <flink python> flink_job.py SPEC.json

A message the format refuses fails the job: the exception (Flink's message and its causes)
goes to stderr and the exit status is not 0.
"""

import json
import sys

from pyflink.table import EnvironmentSettings, TableEnvironment


def _text(name: str, kind: str) -> str:
    """The select expression giving column ``name`` of Flink type ``kind`` as a STRING."""
    if kind == "BYTES":
        return f"DECODE(`{name}`, 'ISO-8859-1')"
    return f"CAST(`{name}` AS STRING)"


def main() -> None:
    """Run the spec's tables one after another, printing their changelogs."""
    with open(sys.argv[1], encoding="utf-8") as file:
        spec = json.load(file)
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    env.get_config().set("parallelism.default", "1")
    env.get_config().set("table.local-time-zone", "UTC")
    options = "".join(f", '{key}'='{value}'" for key, value in spec["options"].items())
    for index, table in enumerate(spec["tables"]):
        columns = ", ".join(f"`{name}` {kind}" for name, kind in table["columns"])
        env.execute_sql(
            f"CREATE TABLE t{index} ({columns}) WITH ("
            f"'connector'='filesystem', 'path'='file://{table['path']}', "
            f"'format'='debezium-json'{options})"
        )
        select = ", ".join(_text(name, kind) for name, kind in table["columns"])
        with env.execute_sql(f"SELECT {select} FROM t{index}").collect() as rows:
            for row in rows:
                line = {"table": index, "kind": str(row.get_row_kind()), "values": list(row)}
                print(json.dumps(line), flush=True)  # ASCII: no line separator inside


if __name__ == "__main__":
    main()
