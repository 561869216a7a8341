"""A feed's files as Spark reads them: listed by Python, named literally, named back.

Spark takes a path as a Hadoop glob (``feed[1].jsonl`` matches ``feed1.jsonl``), lists a
folder through Hadoop, and Hadoop's checksummed local filesystem cannot open a name holding
``:`` (``feed-2024-01-01T10:00:00.jsonl``: its checksum file's name parses as a URI with a
scheme). So the files are listed as the inline engine lists them (``feed_files``), each is
handed over as a ``file:`` URI with the glob characters escaped, and the read goes through
Hadoop's raw local filesystem, which keeps no checksum files. Spark reports a file's name
URI-encoded (``feed%5B1%5D.jsonl``); ``feed_file_name`` turns it back into the name.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

from tisink.feed.format.reader import feed_files

_GLOB = re.compile(r"([\\\[\]{}*?])")

RAW_LOCAL_FS = {
    "fs.file.impl": "org.apache.hadoop.fs.RawLocalFileSystem",
    "fs.file.impl.disable.cache": "true",
}
"""Reader options (Spark passes them on to Hadoop) for the local filesystem without checksum
files; uncached, so other reads of the session keep their own filesystem object."""


def literal_paths(path: str | os.PathLike[str]) -> list[str]:
    """The feed's files (FeedError when there are none) as paths Spark reads as they are."""
    return [literal_path(file) for file in feed_files(path)]


def literal_path(file: Path) -> str:
    """``file`` as an absolute ``file:`` URI that no glob character of its name widens (a
    symbolic link keeps its own name, as the inline engine reads it)."""
    return "file://" + _GLOB.sub(r"\\\1", os.path.abspath(file))


def feed_file_name(reported: str) -> str:
    """The name of a feed file as Spark's ``_metadata.file_name`` reports it (URI-encoded:
    every ``%`` is encoded too, so decoding gives the name back exactly)."""
    return unquote(reported)
