"""The README's and ``docs/`` pages' commands, run as written.

Every ```bash block is run in a temporary folder (holding the checkout's ``feed`` and
``examples``), unless an HTML comment right before it says why it cannot be:
``<!-- readme-test: skip (needs a Spark cluster) -->``. A block that should end with another
exit code says so the same way: ``<!-- readme-test: exit 1 (the naive consumer drifts) -->``.
The only substitutions are where a reader's machine and the test's differ: ``/tmp/`` becomes
the test's folder and the Kafka ports the examples use (9092, 19092) a free one, so blocks run
side by side. A block that starts ``tisink broker ... &`` must stop it as it tells the reader
to: nothing it started may still run after it.

What the commands write into a checkout is ignored by git, so following the README leaves
``git status`` clean.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tisink.feed.spark.driver.class_archive import archive_name, local_java
from tisink.feed.spark.driver.session import LOCAL_JVM_OPTIONS
from tisink.run.cache import cache_dir

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
_MARK = re.compile(r"<!--\s*readme-test:\s*(skip|exit\s+(\d+))\s*(.*?)\s*-->\s*$")
_OUTPUT = re.compile(
    r"(?:--out|--summary-json|--report|--report-json|--feed)\s+([\w./-]+)"
    r"|sqlite:///([\w./-]+\.db)"
)
_PORT = re.compile(r"(?<![\d.])(?:19092|9092)(?!\d)")
_SUMMARY_ROW = re.compile(r"^│ (\w+)\s+│", re.MULTILINE)
_ACKNOWLEDGED = re.compile(r"^\d+ rows acknowledged, [\d.]+ rows/sec \([\d.]+ MB/sec\), ")
BLOCK_TIMEOUT_S = 240


@dataclass(frozen=True)
class Block:
    """One fenced block of a page, with what its marker (if any) asks."""

    page: str
    line: int
    language: str
    text: str
    skip: str | None = None
    exit_code: int = 0

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(language: str | None = None) -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            mark = _MARK.search(before)
            skip = exit_code = None
            if mark and mark.group(1) == "skip":
                skip = mark.group(3)
            elif mark:
                exit_code = int(mark.group(2))
            block = Block(
                page=str(page.relative_to(ROOT)),
                line=text.count("\n", 0, match.start()) + 1,
                language=match.group(1),
                text=match.group(2),
                skip=skip,
                exit_code=exit_code or 0,
            )
            if language is None or block.language == language:
                found.append(block)
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


_PROLOGUE = "set -euo pipefail\ntrap 'echo \"readme-test: line $((LINENO - 2)) exited $?\"' ERR\n"
_FAILED_AT = re.compile(r"^readme-test: line (\d+) exited \d+$", re.MULTILINE)


def _script(block: Block, folder: Path) -> str:
    """The block as bash runs it: stop at the first failing command and say its line."""
    text = block.text.replace("/tmp/", f"{folder}/")
    text = _PORT.sub(str(_free_port()), text)
    return _PROLOGUE + text


def _last_command_line(block: Block) -> int:
    """The block's line (from 1) where its last command starts."""
    lines = block.text.splitlines()
    last = max(i for i, line in enumerate(lines) if line.strip() and not line.startswith("#"))
    while last > 0 and lines[last - 1].endswith("\\"):
        last -= 1
    return last + 1


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _run(block: Block, folder: Path) -> None:
    """Run the block in ``folder``. Fails when it outlives the timeout or leaves a
    program it started running (a broker the reader was not told how to stop)."""
    for name in ("feed", "examples"):
        (folder / name).symlink_to(ROOT / name, target_is_directory=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        child = subprocess.Popen(
            ["bash", "-c", _script(block, folder)],
            cwd=folder,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            child.wait(timeout=BLOCK_TIMEOUT_S)
            deadline = time.monotonic() + 10
            while _group_alive(child.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            left = _group_alive(child.pid)
        except subprocess.TimeoutExpired:
            left = None
        finally:
            if _group_alive(child.pid):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        out.seek(0)
        output = out.read()
    tail = "\n".join(output.splitlines()[-30:])
    assert left is not None, f"{block.name} ran past {BLOCK_TIMEOUT_S} s:\n{tail}"
    assert not left, f"{block.name}: a program the block started still runs after it:\n{tail}"
    assert child.returncode == block.exit_code, (
        f"{block.name} exited {child.returncode}, expected {block.exit_code}:\n{tail}"
    )
    if block.exit_code:
        failed = [int(line) for line in _FAILED_AT.findall(output)]
        assert failed and failed[0] >= _last_command_line(block), (
            f"{block.name}: the exit code is not its last command's:\n{tail}"
        )


BASH = blocks("bash")
RUN = [block for block in BASH if block.skip is None]


def test_every_skipped_block_says_why() -> None:
    unexplained = [b.name for b in BASH if b.skip is not None and not b.skip.startswith("(")]
    assert unexplained == [], f"readme-test: skip needs a reason in parentheses: {unexplained}"
    assert len(RUN) > len(BASH) // 2, "most of the documentation's commands must run"


@pytest.mark.parametrize("block", RUN, ids=[block.name for block in RUN])
def test_bash_block_runs_as_written(block: Block, tmp_path: Path) -> None:
    _run(block, tmp_path)


def _summary_samples() -> list[Block]:
    return [b for b in blocks() if b.language in ("", "text") and _SUMMARY_ROW.search(b.text)]


def test_sample_summaries_have_every_row_a_real_play_prints(tmp_path: Path) -> None:
    """The samples are real output: each has every row of the summary a play prints now, and
    ends, as the console does, with the ``N rows acknowledged`` line."""
    real = subprocess.run(
        ["tisink", "play", "--engine", "inline", "--workload", "demo", "--rows", "2000"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_S,
        env={**os.environ, "COLUMNS": "80"},
    )
    output = real.stdout + real.stderr
    assert real.returncode == 0, output
    rows = set(_SUMMARY_ROW.findall(output))
    assert {"rows", "verified", "writing_rows_per_s"} <= rows
    last_line = (real.stdout.strip() or real.stderr.strip()).splitlines()[-1]
    assert _ACKNOWLEDGED.match(last_line), output
    samples = _summary_samples()
    assert samples, "the documentation shows no sample summary"
    for sample in samples:
        missing = sorted(rows - set(_SUMMARY_ROW.findall(sample.text)))
        assert missing == [], f"{sample.name}: the sample summary lacks {missing}"
        last = sample.text.strip().splitlines()[-1]
        assert _ACKNOWLEDGED.match(last), f"{sample.name} does not end as the console does"


def test_class_archive_size_is_the_documented_one() -> None:
    """The sizes the engines page gives for the class-data-sharing archive hold the archive a
    Spark play wrote into tisink's cache with today's JVM options (an archive of other options,
    an older tisink's, may be there too; its size depends on the classes the first play
    loaded)."""
    java = local_java()
    archive = cache_dir() / archive_name(java, LOCAL_JVM_OPTIONS) if java else None
    if archive is None or not archive.exists():
        pytest.skip("no class-data-sharing archive in tisink's cache: a local Spark play writes it")

    page = (ROOT / "docs" / "engines.md").read_text(encoding="utf-8")
    stated = re.search(r"exits, (\d+) to (\d+) MB as that play loaded", page)
    assert stated is not None, "docs/engines.md states no archive size"
    size_mb = archive.stat().st_size / 1e6
    low, high = int(stated.group(1)), int(stated.group(2))
    assert low <= size_mb <= high, f"the archive is {size_mb:.0f} MB"


def _relative_outputs() -> set[str]:
    found = set()
    for block in BASH:
        for match in _OUTPUT.finditer(block.text):
            path = match.group(1) or match.group(2)
            if path and not path.startswith(("/", "feed/", "examples/", "bench/")):
                found.add(path)
    return found


def test_readme_outputs_are_ignored() -> None:
    outputs = _relative_outputs()
    assert {"demo.jsonl", "run.json", "schemas/", "run1/", "consumer.db"} <= outputs
    outputs.add("bench-results/")  # tisink bench's default --out
    kept = [
        path
        for path in sorted(outputs)
        if subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode != 0
    ]
    assert kept == [], f"README outputs git would show as untracked: {kept}"


_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings (fenced blocks' comment lines left out)."""
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in _HEADING.findall(text)}


def test_links_between_the_pages_resolve() -> None:
    """The README sends readers to docs/ pages and their sections: every relative link names a
    file of the checkout and, with ``#``, a heading of it."""
    broken = []
    for page in PAGES:
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists() or (anchor and anchor not in _anchors(linked)):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == [], f"links to no file or heading: {broken}"
