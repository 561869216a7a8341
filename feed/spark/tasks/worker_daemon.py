"""The Python daemon of a local master's workers, with the tasks' modules already imported.

PySpark forks every Python worker from one daemon process (``spark.python.daemon.module``);
a worker then imports what its task's function needs, about 0.9 CPU-s for tisink's stages,
sinks and codecs, once per worker, and the first task waits for it. Imported here, before the
daemon forks, every worker inherits them; ``pyspark.worker`` too, which PySpark imports in
each forked worker, from ``pyspark.zip`` on the workers' path, compiling its source every time
(about half a CPU-second a worker). None of these imports starts a thread (the daemon must not
have one when it forks). Cluster executors keep PySpark's own daemon: tisink reaches
them on ``spark.submit.pyFiles``, after the daemon starts.
"""

from __future__ import annotations

import pyspark.worker
from pyspark import daemon

import tisink.codec
import tisink.feed.spark.driver.survey
import tisink.feed.spark.tasks.feed_stage
import tisink.feed.spark.tasks.owned_workload
import tisink.feed.spark.tasks.owner
import tisink.sink

PRELOADED = (
    pyspark.worker,
    tisink.codec,
    tisink.feed.spark.tasks.feed_stage,
    tisink.feed.spark.tasks.owned_workload,
    tisink.feed.spark.tasks.owner,
    tisink.feed.spark.driver.survey,
    tisink.sink,
)
"""What a task imports (named, so nothing here is an unused import)."""

if __name__ == "__main__":
    daemon.manager()
