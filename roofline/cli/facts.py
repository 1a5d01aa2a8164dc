"""What the command line needs to know of a command beyond its options, declared in the command's module beside
its function (``FACTS``, read by ``roofline.cli.app`` once it imports that module): the output file its document is
written to (its --format then follows that file's name where not given, ``cli.writing.output_format_class``), and
whether its arguments are report files and it reads their SASS (``cli.fast_start.start_reading`` starts reading the
one report it names before its command line is parsed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:  # pragma: no cover
    from roofline.render.base import Kind


class Output(Struct, frozen=True):
    """The kind of document a command writes, and the parameter and option that name its file."""

    kind: Kind
    parameter: str = "output"
    option: str = "--output"


class Reads(Struct, frozen=True):
    """A command whose arguments are report files, and whether its reader takes the SASS of the sampled instructions
    (``AnalysisOptions.diagnostics and AnalysisOptions.sass``: only commands that show the hot spots)."""

    sass: bool


class Facts(Struct, frozen=True):
    """A command's facts (``FACTS`` beside its function); a command that declares none has these defaults."""

    output: Output | None = None
    reads: Reads | None = None
