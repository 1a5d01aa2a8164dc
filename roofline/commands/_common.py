"""Helpers shared by the CLI commands: user errors as one line and an exit code, and writing output files."""

from __future__ import annotations

import functools
from pathlib import Path
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


MAX_MARKER_SCAN = 64 * 2**20  # larger files are never taken for one of ours


def written_by_us(path: Path) -> bool:
    """Whether an existing file carries roofline's generator mark."""
    from roofline.render import GENERATED_BY

    if path.stat().st_size > MAX_MARKER_SCAN:
        return False
    return GENERATED_BY.encode() in path.read_bytes()


def emit(text: str, output: Path | None) -> None:
    """Print ``text``, or write it to ``output`` with ``write_output``."""
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_output(output, text)


def write_output(path: Path, content: str | bytes) -> None:
    """Write an output file, creating its folder. An existing file is replaced only if roofline wrote it
    (it carries the generator mark), so a report or a hand-written file is never overwritten; text without
    the mark of its own format gets it as a last line."""
    from roofline import __version__
    from roofline.errors import RooflineError
    from roofline.render import GENERATED_BY

    if isinstance(content, str):
        if GENERATED_BY not in content:
            content += f"\n{GENERATED_BY} {__version__}\n"
        content = content.encode()
    if path.is_dir():
        raise RooflineError(f"{path}: is a folder", "name a file inside it")
    if path.exists() and not written_by_us(path):
        raise RooflineError(f"{path}: exists and was not written by roofline; not replacing it",
                            "remove it, or choose another file with -o/--output")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    except OSError as err:
        raise RooflineError(f"{path}: cannot write ({err.strerror})", "choose a writable path") from None
    typer.echo(f"wrote {path}", err=True)
