"""A SparkSession tuned for short plays: quiet, no UI, loopback driver, few shuffle partitions."""

from __future__ import annotations

import os
import sys
from typing import Any

HUGE_PARTITION_BYTES = str(1 << 40)
"""Spark never splits a feed file below this size, so line numbers can be counted per file."""


def spark_session(master: str = "local[*]", app_name: str = "tisink-play") -> Any:
    """The active SparkSession, or a new one for ``master`` (``local[*]`` or a cluster URL)."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.files.maxPartitionBytes", HUGE_PARTITION_BYTES)
        .config("spark.python.worker.reuse", "true")
        .config("spark.task.maxFailures", "1")
    )
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = builder.config("spark.driver.host", "127.0.0.1").config(
            "spark.driver.bindAddress", "127.0.0.1"
        )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("WARN")
    return session
