"""`tisink play`: a feed or a workload through a sink, on the inline or the Spark engine."""
