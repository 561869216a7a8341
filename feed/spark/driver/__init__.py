"""What runs on the driver of a Spark play: the session and the shipped environment, the
survey of a feed, the plan of a workload, the job and the summary (feed/spark/README.md)."""
