"""Feed file names on the Spark engine, without Spark: literal paths in, real names out
(``feed/spark/driver/feed_paths.py``; end to end in ``test_feed_paths.py``)."""

from __future__ import annotations

from pathlib import Path

from tisink.feed.spark.driver.feed_paths import feed_file_name, literal_path
from tisink.feed.spark.driver.survey import FeedSurvey, place_of


def test_glob_characters_are_escaped_in_an_absolute_file_uri(tmp_path: Path) -> None:
    file = tmp_path / "f[1]{a,b}*?\\.jsonl"
    assert literal_path(file) == f"file://{tmp_path}/f\\[1\\]\\{{a,b\\}}\\*\\?\\\\.jsonl"
    link = tmp_path / "part-1.jsonl"
    link.symlink_to(tmp_path / "target.jsonl")
    assert literal_path(link) == f"file://{tmp_path}/part-1.jsonl"  # its own name, as inline


def test_spark_names_decode_back_to_the_names_on_disk() -> None:
    assert feed_file_name("feed%5B1%5D.jsonl") == "feed[1].jsonl"
    assert feed_file_name("pc%2520.jsonl") == "pc%20.jsonl"
    assert feed_file_name("feed-2024-01-01T10:00:00.jsonl") == "feed-2024-01-01T10:00:00.jsonl"


def test_files_rank_and_name_lines_by_their_names_on_disk() -> None:
    # "a b.jsonl" comes before "a!.jsonl" (a space sorts before "!"), as Spark reports them
    # ("a%20b.jsonl" after "a!.jsonl") it would not
    survey = FeedSurvey.collect([("n", "a!.jsonl", 0, 3), ("n", "a%20b.jsonl", 0, 4)])
    assert survey.ranks == {"a%20b.jsonl": 0, "a!.jsonl": 1}
    assert survey.line_of(place_of(0, 0, 2)) == ("a b.jsonl", 3)
    assert survey.line_of(place_of(1, 0, 0)) == ("a!.jsonl", 1)
