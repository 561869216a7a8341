"""The Flink side of ``test_flink_consumer.py``: runs in a PyFlink environment, not tisink's.

Reads, for each table of a spec file, a directory of canal-json lines with Flink's ``canal-json``
format (filesystem connector, parallelism 1) and prints one JSON line per changelog row:
``{"table": i, "kind": "+I", "values": [...]}``, every value cast to STRING by Flink.

    <flink python> flink_job.py SPEC.json
"""

import json
import sys

from pyflink.table import EnvironmentSettings, TableEnvironment


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as file:
        spec = json.load(file)
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    env.get_config().set("parallelism.default", "1")
    for index, table in enumerate(spec["tables"]):
        columns = ", ".join(f"`{name}` {kind}" for name, kind in table["columns"])
        env.execute_sql(
            f"CREATE TABLE t{index} ({columns}) WITH ("
            f"'connector'='filesystem', 'path'='file://{table['path']}', "
            "'format'='canal-json', "
            f"'canal-json.database.include'='{table['database']}', "
            f"'canal-json.table.include'='{table['table']}')"
        )
        select = ", ".join(f"CAST(`{name}` AS STRING)" for name, _ in table["columns"])
        with env.execute_sql(f"SELECT {select} FROM t{index}").collect() as rows:
            for row in rows:
                line = {"table": index, "kind": str(row.get_row_kind()), "values": list(row)}
                print(json.dumps(line), flush=True)  # ASCII: no line separator inside


if __name__ == "__main__":
    main()
