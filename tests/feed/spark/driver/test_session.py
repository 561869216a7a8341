"""The session a play starts runs its small plans interpreted (``INTERPRETED_PLANS``)."""

from __future__ import annotations

from typing import Any

from tisink.feed.spark.driver.session import INTERPRETED_PLANS


def test_the_plays_plans_are_interpreted_not_compiled(spark: Any) -> None:
    for key, value in INTERPRETED_PLANS:
        assert spark.conf.get(key) == value
    frame = spark.range(0, 50, numPartitions=2).selectExpr("id % 7 AS k", "id")
    plan = frame.sortWithinPartitions("k", "id")._jdf.queryExecution().executedPlan()
    assert "*(" not in plan.toString()  # Spark marks each operator of a compiled stage "*(n)"
    rows = frame.sortWithinPartitions("k", "id").collect()
    assert sorted((row.k, row.id) for row in rows) == sorted((i % 7, i) for i in range(50))
