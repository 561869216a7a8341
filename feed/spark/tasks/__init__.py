"""What runs in a Spark play's tasks: generating and routing a workload's rows in their
partition owners, stage one over a feed's lines, and each owner's play of its partition
(feed/spark/README.md)."""
