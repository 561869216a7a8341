"""How a command ends on an error: one red line on stderr and its exit code.

``<command> refused: ...`` is a setting or input the command will not take (exit 2);
``<command> failed: ...`` is a run that went wrong (exit 1, unless the command documents
another code). The message is plain text: markup in it is shown as written.
"""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from tisink.core.errors import refusal_in

REFUSED = 2
FAILED = 1

console = Console(stderr=True)
"""The commands' diagnostics: progress, summaries, and the line a command ends on."""


def exit_with(line: str, code: int) -> NoReturn:
    """Print ``line`` (Rich markup, kept on one line however narrow the terminal) and exit."""
    console.print(line, soft_wrap=True, highlight=False)
    raise typer.Exit(code)


def refuse(command: str, message: str) -> NoReturn:
    """``<command> refused: <message>``, exit 2."""
    exit_with(f"[bold red]{escape(command)} refused:[/] {escape(message)}", REFUSED)


def fail(command: str, message: str, code: int = FAILED) -> NoReturn:
    """``<command> failed: <message>``, exit ``code`` (1 unless the command says otherwise)."""
    exit_with(f"[bold red]{escape(command)} failed:[/] {escape(message)}", code)


def end_on(command: str, err: BaseException, code: int = FAILED) -> NoReturn:
    """A refusal along ``err``'s causes is refused (exit 2); anything else failed (``code``)."""
    if refusal_in(err) is not None:
        refuse(command, str(err))
    fail(command, str(err), code)
