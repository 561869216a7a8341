"""What the README's commands write into a checkout (feeds, summaries, schemas, reports,
databases) is ignored by git, so following the README leaves ``git status`` clean."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_OUTPUT = re.compile(
    r"(?:--out|--summary-json|--report|--report-json|--feed)\s+([\w./-]+)"
    r"|sqlite:///([\w./-]+\.db)"
)
_BLOCK = re.compile(r"```bash\n(.*?)```", re.DOTALL)


def _relative_outputs() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = set()
    for block in _BLOCK.findall(text):
        for match in _OUTPUT.finditer(block):
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
