"""Rich consoles for a command's results, at a width that suits where they go.

Rich lays tables out at the terminal's width; on a pipe or a file there is no terminal, and
Rich's fallback of 80 columns would wrap summary rows and cut bench headers, so output that
is not a terminal gets ``COLUMNS`` when set and otherwise a width no line reaches.
"""

from __future__ import annotations

import os

from rich.console import Console

PIPED_WIDTH = 10_000
"""Columns for output that is not a terminal and no ``COLUMNS``: tables take their natural
width (none of the command line's tables expands), so nothing wraps or is cut."""


def piped_width() -> int:
    """``COLUMNS`` when it is set, else ``PIPED_WIDTH``."""
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else PIPED_WIDTH


def fit_console(console: Console) -> Console:
    """Give ``console`` the piped width when it does not write to a terminal; a terminal is
    left to Rich, which follows its size as it changes. Called once a command knows where its
    output goes (a console made at import time sees the streams of that moment)."""
    if not console.is_terminal:
        console.width = piped_width()
    return console


def stdout_console() -> Console:
    """A console on stdout for a command's result (tables a user may pipe)."""
    return fit_console(Console())
