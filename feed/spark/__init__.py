"""The Spark engine: plays a feed folder or a workload on Spark executors (feed/spark/run.py).

pyspark is imported only when a play starts, so the rest of tisink works without it.
"""

from tisink.feed.spark.errors import SparkPlanError, SparkPlayError
from tisink.feed.spark.run import run_spark_play

__all__ = ["SparkPlanError", "SparkPlayError", "run_spark_play"]
