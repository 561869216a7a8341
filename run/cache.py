"""tisink's cache folder, one rule for everything kept between runs (jars, class archives)."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "TISINK_CACHE_DIR"


def cache_dir() -> Path:
    """``$TISINK_CACHE_DIR`` or ``~/.cache/tisink``, created on first use."""
    folder = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "tisink")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
