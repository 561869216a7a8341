"""The ``tisink`` command group: how its help shows options and how it words a usage mistake.

Typer's help prints a value type beside every option, ``<bool>`` for a flag that takes none;
here a flag shows no type. A value the options do not accept (an unknown choice, a number that
is not one, a missing required option) is a refusal: one line in the project's words,
``play refused: --engine: 'hash' is not one of spark, inline``, exit 2, instead of a boxed
``Value error, ...`` from the validation library.
"""

from __future__ import annotations

from typing import Any, NoReturn

from pydantic import ValidationError
from typer._click.core import Command, Context, HelpFormatter, Parameter
from typer._click.exceptions import BadParameter, MissingParameter, NoArgsIsHelpError, UsageError
from typer.core import TyperGroup, TyperOption

from tisink.exits import refuse

NUMBER_ERRORS = {
    "int_parsing": "is not a whole number",
    "int_from_float": "is not a whole number",
    "float_parsing": "is not a number",
}
"""Validation error types -> how the refusal says it, after the value."""


def hide_flag_types(command: Command, ctx: Context) -> None:
    """Flags (``--verify/--no-verify``, ``--help``) take no value: show no type for them."""
    for param in command.get_params(ctx):
        flag = isinstance(param, TyperOption) and (param.is_flag or param.count)
        if flag and param.metavar is None:
            param.metavar = ""


def param_name(param: Parameter) -> str:
    """An option by its long name (``--engine``), an argument by its metavar (``PROTOCOL``)."""
    if isinstance(param, TyperOption):
        return next((o for o in param.opts if o.startswith("--")), param.opts[0])
    return (param.name or "").upper()


def _choices(param: Parameter) -> list[str]:
    if not isinstance(param, TyperOption) or not param.type_descriptor.is_choice:
        return []
    return [str(getattr(c, "value", c)) for c in param.type_descriptor.choices or ()]


def _value_problem(err: BadParameter) -> str:
    """What is wrong with the value, without the validation library's 'Value error, '."""
    cause = err.__cause__
    if not isinstance(cause, ValidationError) or not cause.errors():
        return err.message.removeprefix("Value error, ").rstrip(".")
    first = cause.errors()[0]
    value = first.get("input")
    choices = _choices(err.param) if err.param is not None else []
    if choices:
        return f"{value!r} is not one of {', '.join(choices)}"
    if first["type"] in NUMBER_ERRORS:
        return f"{value!r} {NUMBER_ERRORS[first['type']]}"
    return f"{value!r}: " + str(first["msg"]).removeprefix("Value error, ").rstrip(".")


def refusal_text(err: UsageError) -> str:
    """The one line after ``<command> refused: ``."""
    if isinstance(err, BadParameter) and err.param is not None:
        name = param_name(err.param)
        if isinstance(err, MissingParameter):
            return f"{name} is required"
        return f"{name}: {_value_problem(err)}"
    text = err.format_message()
    return text[:1].lower() + text[1:].rstrip(".")


class TisinkGroup(TyperGroup):
    """The app's group: flags without a type in every help, usage mistakes as refusals."""

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        hide_flag_types(self, ctx)
        super().format_help(ctx, formatter)

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            hide_flag_types(command, ctx)
        return command

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: Context | None = None,
        **extra: Any,
    ) -> Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except UsageError as err:
            refuse_usage(err, info_name or "tisink")

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as err:
            refuse_usage(err, ctx.info_name or "tisink")


def refuse_usage(err: UsageError, fallback: str) -> NoReturn:
    """Say ``err`` in one line and exit 2; the no-arguments help passes through untouched."""
    if isinstance(err, NoArgsIsHelpError):
        raise err
    context = err.ctx
    command = (context.info_name if context is not None else None) or fallback
    path = context.command_path if context is not None else fallback
    refuse(command, f"{refusal_text(err)} (see {path} --help)")
