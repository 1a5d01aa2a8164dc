"""The one output writer: every file roofline writes (reports, tables, JSON, plots) goes through ``write_output``.

Its promises, and how it keeps them:

* **It never replaces a file roofline did not write.** An existing file is replaced only when it carries the
  generator mark at the fixed place of its format (``carries_mark``): the first line of text, the first key of
  a JSON document, the first columns of a CSV's header row, a PNG ``tEXt`` chunk ``Software``, the SVG metadata
  title, the PDF document information ``/Creator``. A file that merely contains the words somewhere is not ours.
* **It reads little to decide.** Only regular files are opened, without blocking, and only their first 8 KiB
  (a PDF's information dictionary is found from its trailer: three small reads near the end).
* **It writes only regular files.** A device, FIFO or socket (``-o /dev/zero``, a named pipe) is refused with
  one line; ``-`` is standard output.
* **A crash never leaves half a file.** The bytes go to a temporary file in the same folder, are flushed to
  disk, and the file is renamed over the target (atomic on POSIX); a symbolic link's target is replaced, or
  written where the link leads nowhere and the target's folder is there (no folder is made at a link's target).
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import BinaryIO

import typer

from roofline.core.files import file_kind, unwritable_folder
from roofline.errors import RooflineError
from roofline.render import CSV_MARKS, GENERATED_BY, GENERATOR
from roofline.render.base import extension
from roofline.render.names import terminal_safe, visible

STDOUT = "-"
DOCUMENT_OPTION = "-o"  # the option naming a command's document (analyze's is --report-output), for the fixes
HEAD_BYTES = 8192  # the most read of an existing file to find the mark
TMP_NAME_CHARS = 200  # of the target's name in its temporary file's, which adds 14: within NAME_MAX (255)
_MARK = re.escape(GENERATED_BY).encode()
# The marks at the start of a text, a JSON document, an SVG and a CSV's header row (ours), as patterns that
# ``re.match`` compiles on first use: only a write over an existing file looks for them.
_HEAD_MARKS = (rb"(?:" + _MARK + rb" \S+|# " + _MARK + rb" \S+|<!-- " + _MARK + rb" [^\n]*-->)\r?\n",
               rb'\{"generator":"' + _MARK + rb" ",
               rb"<\?xml[^>]*\?>\s*(?:<!DOCTYPE svg[^>]*>\s*)?<svg [^>]*>\s*<metadata>\s*<rdf:RDF[^>]*>\s*"
               rb"<cc:Work>\s*<dc:creator>\s*<cc:Agent>\s*<dc:title>" + _MARK + rb" ",
               rb"(?:" + b"|".join(re.escape(mark.encode()) for mark in CSV_MARKS) + rb")\r?\n")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_MARK = b"Software\x00" + GENERATED_BY.encode() + b" "
# The first line a writer adds to text without a mark, by file suffix (comment syntax keeps the format valid).
_COMMENT_MARK = {".md": "<!-- {} -->", ".markdown": "<!-- {} -->", ".html": "<!-- {} -->", ".htm": "<!-- {} -->",
                 ".yaml": "# {}", ".yml": "# {}"}


def write_output(path: Path, content: str | bytes, announce: bool = True, option: str = DOCUMENT_OPTION) -> None:
    """Write ``content`` to ``path`` (``-``: standard output), creating its folders; refuse a file roofline did
    not write and anything but a regular file. Text without the mark of its format gets it as a first line.
    ``announce``: say ``wrote PATH`` on stderr, and that it replaced an earlier run's file where one was there;
    ``option``: the option that names the document, in the fixes."""
    if str(path) == STDOUT:
        to_stdout(content, option)
        return
    target = replaceable(path, option)
    existed = os.path.lexists(target)
    data = _marked(content, path).encode("utf-8", "replace") if isinstance(content, str) else content
    _replace(target, data, path)
    if announce:
        _announce(path, existed)


def _announce(path: Path, replaced: bool = False) -> None:
    """``wrote PATH`` on stderr; ``(replaced the file an earlier run wrote)`` after it where one was there."""
    typer.echo(f"wrote {visible(str(path))}" + (" (replaced the file an earlier run wrote)" if replaced else ""),
               err=True)


def write_all(files: Sequence[tuple[Path, str | bytes]], option: str = DOCUMENT_OPTION) -> None:
    """Write each of ``files`` (``write_output``), in order; when one fails, the files this call created before it
    are removed, so that a failed run leaves no new file (a document that cannot be written, and its plots). Each
    file written is named on stderr once all are, so a failure is the one line of its error (``option``: the
    option that names the document, in the fixes)."""
    # a target that cannot be one (a folder, a device, a file of another) fails before any; a symbolic link's
    # target is the file written, new where the link dangles
    targets = {path: replaceable(path, option) for path, _ in files if str(path) != STDOUT}
    created: list[Path] = []
    try:
        for path, content in files:
            new = str(path) != STDOUT and not os.path.lexists(targets[path])
            write_output(path, content, announce=False, option=option)
            if new:
                created.append(path)
    except BaseException:
        for path in created:
            with suppress(OSError):
                os.unlink(targets[path])  # the file made, not a link the user made to it
        raise
    for path, _ in files:
        if str(path) != STDOUT:
            _announce(path, path not in created)


def carries_mark(path: Path) -> bool:
    """Whether an existing regular file carries roofline's generator mark at the fixed place of its format."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = fh.read(HEAD_BYTES)
        if head.startswith(b"%PDF-"):
            return _pdf_marked(fh)
    if head.startswith(_PNG_SIGNATURE):
        return _png_marked(head)
    return _head_marked(head)


def _errors() -> str:
    """How text is encoded for standard output: with the terminal's ASCII fallbacks where the command line set them
    up (``cli.app``), else a character the encoding lacks as "?"."""
    import codecs

    from roofline.render.names import TERMINAL_ERRORS

    try:
        codecs.lookup_error(TERMINAL_ERRORS)
    except LookupError:
        return "replace"
    return TERMINAL_ERRORS


def to_stdout(content: str | bytes, option: str = DOCUMENT_OPTION) -> None:
    """``content`` on standard output; text in the stream's encoding, what it cannot write (a lone surrogate from
    a report) as ``?``, as files are written (a name is data of the profiled program: it may hold anything).
    ``option``: the option that writes the document to a file instead, in the fixes."""
    if sys.stdout is None:  # started with standard output closed (>&-)
        raise RooflineError("standard output is closed", f"write to a file with {option}")
    try:
        if isinstance(content, str):
            encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
            if sys.stdout.isatty():  # names from reports are data: they reach a terminal escaped
                content = terminal_safe(content)
            typer.echo(content.encode(encoding, _errors()).decode(encoding), nl=False)
            sys.stdout.flush()
        else:
            sys.stdout.buffer.write(content)
            sys.stdout.buffer.flush()
    except BrokenPipeError:  # the reader left (roofline ... | head): not an error of the run
        return
    except (OSError, ValueError) as err:  # a full device (>/dev/full), a closed descriptor
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise RooflineError(f"standard output: cannot write ({why})", f"write to a file with {option}") from None


def _marked(text: str, path: Path) -> str:
    """Text that starts with a mark (``carries_mark``), adding one as a first line if it has none."""
    head = text[:HEAD_BYTES].encode("utf-8", "replace")
    if _head_marked(head):
        return text
    return _COMMENT_MARK.get(extension(path.name), "{}").format(GENERATOR) + "\n" + text


def _head_marked(head: bytes) -> bool:
    """Whether ``head`` starts with the mark of a text, a JSON document, an SVG or a CSV."""
    return any(re.match(mark, head) for mark in _HEAD_MARKS)


def named_by(option: str | None) -> str:
    """The fix's words for the option that named a file roofline will not replace (the MCP server says its own)."""
    return "the option that named it" + (f", or {option} for the files beside a report" if option else "")


def replaceable(path: Path, option: str | None = DOCUMENT_OPTION) -> Path:
    """The file to write for ``path`` (a symbolic link's target): new, or an existing regular file of ours, in a
    folder where files can be made; RooflineError naming why not. ``option`` names the command's document output
    (which takes ``-`` for standard output) in the fixes; None for a file another option named (--plot)."""
    target = Path(os.path.realpath(path))
    try:
        info = os.stat(target)
    except FileNotFoundError:
        _refuse_folders_elsewhere(target, path)
        return _in_writable_folder(target, path)
    except OSError as err:  # e.g. a parent that is a file, or a folder we may not enter
        raise RooflineError(f"{path}: cannot write ({err.strerror})", "choose a writable path") from None
    if stat.S_ISDIR(info.st_mode):
        raise RooflineError(f"{path}: is a folder", "name a file inside it")
    if not stat.S_ISREG(info.st_mode):
        raise RooflineError(f"{path}: is {file_kind(info.st_mode)}, not a regular file; roofline writes only files",
                            f"use {option} - for standard output, or name a file" if option else "name a file")
    try:
        ours = carries_mark(target)
    except OSError as err:
        raise RooflineError(f"{path}: cannot read ({err.strerror})", "choose another file name") from None
    if not ours:
        raise RooflineError(f"{path}: exists and was not written by roofline; not replacing it",
                            f"remove it, or choose another file name ({named_by(option)})")
    return _in_writable_folder(target, path)


def _missing_folders(folder: Path) -> tuple[Path, Path]:
    """The nearest folder of ``folder`` that is there (a link, even one that leads nowhere, counts) and the part
    of ``folder`` below it that the writer would make."""
    there = folder
    while not os.path.lexists(there) and there != there.parent:
        there = there.parent
    return there, folder.relative_to(there)


def _refuse_folders_elsewhere(target: Path, shown: Path) -> None:
    """RooflineError where a new file's missing folders would be made somewhere the path named does not show: a
    symbolic link that leads nowhere (its target's folder missing), which would make folders at the link's target,
    outside the path given. The folders the path itself names are made as ever."""
    made = _missing_folders(target.parent)[1]
    if made != Path() and made != _missing_folders(Path(os.path.abspath(shown)).parent)[1]:
        raise RooflineError(f"{shown}: leads through a symbolic link to {target}, whose folder {target.parent} "
                            "does not exist; roofline makes no folder a link leads to",
                            "create the folder, or name another file")


def _in_writable_folder(target: Path, shown: Path) -> Path:
    """``target`` when its folder takes new files (the file is written beside it, then renamed); else the one-line
    error naming the folder in the way (``core.files.unwritable_folder``)."""
    blocked = unwritable_folder(target.parent)
    if blocked is not None:
        folder, why = blocked
        raise RooflineError(f"{shown}: cannot write ({folder}: {why})", "choose a writable folder")
    return target


def _replace(target: Path, data: bytes, shown: Path) -> None:
    """Write a temporary file beside ``target``, flush it to disk, rename it over ``target``."""
    fail = f"{shown}: cannot write"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(os.stat(target).st_mode) if target.exists() else None
        tmp = target.with_name(f".{target.name[:TMP_NAME_CHARS]}.{os.urandom(4).hex()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as for any new file
    except OSError as err:
        raise RooflineError(f"{fail} ({err.strerror})", "choose a writable path") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as err:
        tmp.unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise RooflineError(f"{fail} ({err.strerror})", "choose a writable path with free space") from None
        raise
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    """Flush the rename itself to disk (POSIX); skipped where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _png_marked(head: bytes) -> bool:
    """A ``tEXt`` chunk ``Software`` = the mark among the chunks before the image data."""
    i = len(_PNG_SIGNATURE)
    while i + 8 <= len(head):
        length, kind = int.from_bytes(head[i:i + 4], "big"), head[i + 4:i + 8]
        if kind == b"IDAT":
            return False
        if kind == b"tEXt" and head[i + 8:i + 8 + length].startswith(_PNG_MARK):
            return True
        i += 12 + length
    return False


_PDF_TRAILER = rb"trailer\s*<<(?P<dict>.*?)>>\s*startxref\s*(?P<xref>\d+)\s*%%EOF\s*$"  # with re.S
_PDF_INFO = rb"/Info (\d+) 0 R"
_PDF_XREF = rb"xref\s*0 \d+\s*"


def _pdf_marked(fh: BinaryIO) -> bool:
    """The document information dictionary (found through the trailer and the cross-reference table) names
    roofline as its ``/Creator``."""
    size = os.fstat(fh.fileno()).st_size
    fh.seek(max(0, size - 1024))
    trailer = re.search(_PDF_TRAILER, fh.read(), re.S)
    info = re.search(_PDF_INFO, trailer.group("dict")) if trailer else None
    if trailer is None or info is None:
        return False
    number, xref = int(info.group(1)), int(trailer.group("xref"))
    fh.seek(xref)
    table = re.match(_PDF_XREF, fh.read(64))
    if table is None:
        return False
    fh.seek(xref + table.end() + 20 * number)  # fixed 20-byte entries: "offset generation n"
    entry = fh.read(20).split()
    if len(entry) != 3 or not entry[0].isdigit():
        return False
    fh.seek(int(entry[0]))
    obj = fh.read(256)
    return re.match(rb"%d 0 obj\s*<< /Creator \(" % number + _MARK + rb" ", obj) is not None
