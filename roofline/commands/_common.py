"""Helpers shared by the CLI commands: turning user errors into one line and an exit code."""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

import typer

F = TypeVar("F", bound=Callable[..., object])


def handles_errors(func: F) -> F:
    """Decorate a command so a RooflineError prints ``roofline: error: ...`` and exits with its code."""

    @functools.wraps(func)
    def wrapper(*args: object, **kwargs: object) -> object:
        from roofline.errors import RooflineError

        try:
            return func(*args, **kwargs)
        except RooflineError as err:
            typer.echo(f"roofline: error: {err}", err=True)
            raise typer.Exit(err.exit_code) from None

    return wrapper  # type: ignore[return-value]
