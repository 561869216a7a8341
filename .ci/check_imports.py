#!/usr/bin/env python3
"""Fail when pyright, run on the checkout as it is, cannot resolve a ``tisink.*`` import.

The layer folders sit at the top level and ``tisink/`` reaches them through symlinks; this
keeps that layout readable for static tools (VS Code's Pylance is pyright)."""

import json
import subprocess
import sys

result = subprocess.run(
    ["pyright", "--outputjson", "."], capture_output=True, text=True, check=False
)
try:
    report = json.loads(result.stdout)
except json.JSONDecodeError:
    print(result.stdout[-2000:], result.stderr[-2000:], sep="\n")
    sys.exit("pyright did not run")
unresolved = [
    d
    for d in report["generalDiagnostics"]
    if d.get("rule") == "reportMissingImports" and "tisink" in d["message"]
]
for d in unresolved:
    print(f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}")
files = report["summary"]["filesAnalyzed"]
print(f"pyright: {files} files, {len(unresolved)} unresolved tisink imports")
sys.exit(1 if unresolved else 0)
