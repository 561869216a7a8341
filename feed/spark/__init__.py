"""The Spark engine: plays a feed folder or a workload on Spark executors (``driver/run.py``;
feed/spark/README.md).

pyspark is imported only when a play starts, so the rest of tisink works without it.
"""

from tisink.feed.spark.driver.run import run_spark_play
from tisink.feed.spark.errors import SparkPlanError, SparkPlayError

__all__ = ["SparkPlanError", "SparkPlayError", "run_spark_play"]
