"""Sample feeds shipped with the package (``DEMO_FEED`` runs without any setup)."""

from pathlib import Path

DEMO_FEED = Path(__file__).with_name("demo.jsonl")
