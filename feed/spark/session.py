"""A SparkSession tuned for short plays: quiet, no UI; on a cluster, with tisink's environment.

``archive`` says what Python the executors of a non-local master run: ``"auto"`` packs this
environment (feed/spark/environment.py), ``"none"`` ships nothing (the executors have tisink),
anything else is the path of a packed venv (for example made by ``venv-pack``). A local master
runs its executors with this interpreter.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from tisink.feed.spark.environment import ARCHIVE_DIR, EXECUTOR_PYTHON, executor_archive, tisink_zip

log = logging.getLogger(__name__)

AUTO_ARCHIVE = "auto"
NO_ARCHIVE = "none"


def is_local(master: str) -> bool:
    return master.startswith("local")


def spark_session(
    master: str = "local[*]", app_name: str = "tisink-play", archive: str = AUTO_ARCHIVE
) -> Any:
    """The active SparkSession, or a new one for ``master`` (``local[*]`` or a cluster URL)."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.python.worker.reuse", "true")
        .config("spark.task.maxFailures", "1")
    )
    executor_python = os.environ.get("PYSPARK_PYTHON") or sys.executable
    if is_local(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = builder.config("spark.driver.host", "127.0.0.1").config(
            "spark.driver.bindAddress", "127.0.0.1"
        )
    elif archive != NO_ARCHIVE:
        path = executor_archive() if archive == AUTO_ARCHIVE else archive
        log.info("executors run %s from %s", EXECUTOR_PYTHON, path)
        builder = builder.config("spark.archives", f"{path}#{ARCHIVE_DIR}").config(
            "spark.submit.pyFiles", str(tisink_zip())
        )
        executor_python = EXECUTOR_PYTHON
    # PySpark takes the executors' Python from PYSPARK_PYTHON when the context starts
    previous = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = executor_python
    try:
        session = builder.getOrCreate()
    finally:
        if previous is None:
            os.environ.pop("PYSPARK_PYTHON", None)
        else:
            os.environ["PYSPARK_PYTHON"] = previous
    session.sparkContext.setLogLevel("WARN")
    return session
