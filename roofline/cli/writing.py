"""A document rendered and written: its format settled from the output's name, the files it would write refused
before any work when they cannot be, then the document and the plots beside it written together
(``roofline.cli.output.write_all``, the one writer: the no-overwrite rule holds for every output)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from typer import _click as click

from roofline.cli.failures import say
from roofline.cli.options import by_extension
from roofline.cli.output import DOCUMENT_OPTION, STDOUT, replaceable, to_stdout, write_all
from roofline.core.choices import OUTPUT_OPTION
from roofline.documents.kinds import CompareDocument, Document, ReportDocument
from roofline.render.base import (
    Kind,
    extension,
    find_format,
    format_names,
    image_names,
    images_beside,
    plot_is_beside,
)

if TYPE_CHECKING:  # pragma: no cover
    pass

REPORTS_DIR = Path("reports")
_REPORT_SUFFIXES = (".ncu-rep", ".roofline.json", ".json")
DEFAULT_NAME_CHARS = 120  # the longest joined report names of a default output file before "+N" stands for them


def default_output(paths: Sequence[str | os.PathLike[str]], suffix: str) -> Path:
    """``reports/<report's name><suffix>``; for several reports their names joined by ``+`` (each after its folder's
    name where two share a name: ``h100.triad+h200.triad``), so that other sets of reports go to other files; past
    DEFAULT_NAME_CHARS, the first name and ``+N`` for the N others."""
    stems = [_report_stem(Path(p).name) for p in paths] or ["roofline"]
    if len(set(stems)) < len(stems):
        stems = [f"{Path(p).resolve().parent.name}.{s}" for p, s in zip(paths, stems, strict=True)]
    joined = "+".join(stems)
    if len(joined) > DEFAULT_NAME_CHARS:
        joined = f"{stems[0]}+{len(stems) - 1}"
    return REPORTS_DIR / f"{joined}{suffix}"


def _report_stem(name: str) -> str:
    """A report's file name without its report suffix (``.ncu-rep``, ``.roofline.json``, ``.json``)."""
    return next((name[: -len(s)] for s in _REPORT_SUFFIXES if name.endswith(s)), Path(name).stem)


def write_document(kind: Kind, name: str, document: Document, output: Path | None,
                   paths: Sequence[str | os.PathLike[str]], also: Sequence[tuple[Path, bytes]] = (),
                   option: str = DOCUMENT_OPTION) -> None:
    """Render ``document`` in the format ``name`` of ``kind`` and print it, or write it to ``output`` (by default,
    for a format written to a file, under reports/ after the first report), with its plots beside it (none when it
    goes to standard output; a --plot PNG of the same figure, ``plot_is_beside``, is not drawn again) and the files
    ``also`` (a --plot). They are written together (``write_all``): when the document cannot be written, none of
    the new files stays. ``option`` names ``output`` in the fixes of an error."""
    from msgspec.structs import replace

    fmt = find_format(kind, name)
    target = document_target(kind, name, output, paths)
    files: list[tuple[Path, str | bytes]] = []
    if fmt.plots is not None and target is not None and str(target) != STDOUT:
        same = [data for path, data in also if extension(path.name) == ".png"] if plot_is_beside(document) else []
        images: list[bytes | None] = [*same[:1]] or find_format(kind, fmt.plots).render(document)
        names = image_names(target.name, len(images))
        files += [(target.parent / n, image) for n, image in zip(names, images, strict=True) if image is not None]
        assert isinstance(document, (ReportDocument, CompareDocument)), "only these kinds write plots beside"
        document = replace(document, images=tuple(n if image is not None else "" for n, image in
                                                  zip(names, images, strict=True)))
    text: str = fmt.render(document)
    files += also
    if target is None:
        write_all(files, option)
        to_stdout(text, option)
    else:
        write_all([*files, (target, text)], option)


def format_for_output(kind: Kind, fmt: str, output: Path | None, given: bool,
                      option: str = OUTPUT_OPTION[0]) -> str:
    """The format to write: ``fmt`` when --format was ``given``, else the one the extension of ``output`` names
    (``format_by_extension``). UsageError, before any work, for a name whose extension belongs to another format
    or to an image (a table would go into ``x.html``): the file would hold something its name says it is not; and,
    without --format, for a name whose extension (or none) names no format (``x.xyz``): the extension chooses the
    format, so one that chooses none is refused naming the known ones, not written as the default (a folder, a
    device or a FIFO of that name is left to the writer, whose refusal names it). A ``.txt`` name takes any text,
    and with --format given a name with another extension (or none) any format."""
    from roofline.errors import UsageError
    from roofline.render.base import draws_images, format_by_extension, known_extensions
    from roofline.render.mpl import PLOT_SUFFIXES

    if output is None or str(output) == STDOUT:
        return fmt
    ext, named = extension(output.name), format_by_extension(kind, output.name)
    if given and (ext not in known_extensions() or named == fmt or ext == ".txt"):
        return fmt
    if not given and named is not None:
        return named
    if not given and ext not in known_extensions():
        if _not_a_file(output):
            return fmt
        what = f"a {ext} file" if ext else "a name without an extension"
        raise UsageError(f"{option} {output}: {what}, and without --format the extension chooses the format",
                         f"end the name with one of {by_extension(kind)}, or give --format")
    own = extension(find_format(kind, fmt).suffix)
    if named is not None:
        fix = f"give --format {named}, or end the name with {own}"
    elif given:
        fix = f"end the name with {own}"
    else:
        fix = f"end the name with one of {by_extension(kind)}"
    if ext in PLOT_SUFFIXES and draws_images(kind):
        fix += "; --plot writes an image"
    what = f"--format {fmt} writes {fmt}" if given else f"this command writes {', '.join(format_names(kind))}"
    raise UsageError(f"{option} {output}: a {ext} file, and {what}", fix)


def _not_a_file(path: Path) -> bool:
    """Whether ``path`` exists as something other than a regular file (a folder, a device, a FIFO): the writer
    refuses it with its own reason (``output.replaceable``), which is the one to give."""
    return os.path.lexists(path) and not os.path.isfile(path)


def output_format_class(command_class: type | None, kind: Kind, output_param: str,
                        option: str = OUTPUT_OPTION[0]) -> type:
    """A typer command class (``command_class``, typer's own by default) that settles the command's --format from
    its output file's name (``format_for_output``) once the command line is parsed, before anything else runs."""
    from typer.core import TyperCommand

    class OutputFormat(command_class or TyperCommand):  # type: ignore[misc]
        def invoke(self, ctx: click.Context) -> object:
            from roofline.errors import RooflineError

            source = ctx.get_parameter_source("fmt")
            given = source is not None and source.name != "DEFAULT"
            output = ctx.params.get(output_param)
            try:
                ctx.params["fmt"] = format_for_output(kind, ctx.params["fmt"], None if output is None else Path(output),
                                                      given, option)
            except RooflineError as err:
                raise typer.Exit(say(err, sys.argv[1:])) from None
            return super().invoke(ctx)

    return OutputFormat


def document_target(kind: Kind, name: str, output: Path | None, paths: Sequence[str | os.PathLike[str]]) -> Path | None:
    """The file a document in format ``name`` is written to: ``output``, else reports/... for a format written to a
    file, else None (the terminal)."""
    fmt = find_format(kind, name)
    return output or (default_output(paths, fmt.suffix) if fmt.to_file else None)


def check_distinct_outputs(kind: Kind, name: str, output: Path | None, plot: Path | None,
                           paths: Sequence[str | os.PathLike[str]]) -> None:
    """UsageError, before any work, when ``--plot`` names the document's file or one of the plots written beside it
    (``NAME.png``, ``NAME-1.png``, ...): two outputs never share a path (one would hold the other's content)."""
    from roofline.errors import UsageError

    target = document_target(kind, name, output, paths)
    if plot is None or target is None or str(target) == STDOUT:
        return
    taken = {target}
    if find_format(kind, name).plots is not None:
        taken |= {target.parent / n for n in (*image_names(target.name, 1), *image_names(target.name, len(paths)))}
    if os.path.realpath(plot) in {os.path.realpath(p) for p in taken}:
        raise UsageError(f"--plot {plot}: the {name} output writes this file too", "give the plot another name")


def refuse_unwritable_outputs(kind: Kind, name: str, output: Path | None, plot: Path | None,
                              paths: Sequence[str | os.PathLike[str]], option: str = DOCUMENT_OPTION) -> None:
    """Before any work (a read, a profile): the one-line error of a file the command would write and could not
    (another program's file, a folder, a device, a folder where no file can be made), and of two outputs on one
    path. The document in format ``name`` (to ``output``, named by ``option``, else its default under reports/
    after ``paths``: none when ``paths`` is empty, their names unknown yet), the plots beside it, and ``plot``."""
    check_distinct_outputs(kind, name, output, plot, paths)
    if plot is not None:
        replaceable(plot, None)
    target = document_target(kind, name, output, paths) if output is not None or paths else None
    if target is None or str(target) == STDOUT:
        return
    files = [target]
    if find_format(kind, name).plots is not None:
        files += [target.parent / n for n in image_names(target.name, images_beside(kind, len(paths)))]
    for path in files:
        replaceable(path, option)
