"""`roofline mcp`: serve the analyses to coding agents as Model Context Protocol tools over stdio (docs/agents.md).
The ``mcp`` package is imported only here, when the command runs: it is the optional extra ``roofline[mcp]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from roofline.cli.failures import handles_errors
from roofline.cli.options import SpecsOpt, TimeoutOpt

INSTALL = "pip install 'roofline[mcp]'"


@handles_errors
def mcp(
    root: Annotated[list[Path] | None, typer.Option(
        "--root", metavar="DIR", help="Read (and write, when a tool is asked to) only under this folder "
        "(repeatable; default: the current folder).")] = None,
    timeout: TimeoutOpt = None,
    specs: SpecsOpt = None,
) -> None:
    """Serve the analyses to coding agents over MCP (stdio): list kernels, analyse one, compare, project, specs, nsys.
    Every tool reads only under the roots, writes only an output file asked for inside them, and answers with the
    numbers `--format json` gives for the same input, cut to a size budget."""
    from roofline.errors import RooflineError, UsageError

    roots = root or [Path.cwd()]
    for folder in roots:
        if not folder.is_dir():
            raise UsageError(f"--root {folder}: not a folder", "name an existing folder")
    try:
        import mcp as _sdk  # noqa: F401  # the SDK, present or not, before anything else
    except ImportError:
        raise RooflineError("roofline mcp needs the MCP Python SDK (the mcp package), which is not installed",
                            f"install it with: {INSTALL}") from None
    from roofline.cli.mcp_server import serve
    from roofline.specs.catalog import load_catalog

    load_catalog(specs or ())  # validates the user's spec files: a bad one is one line now, not every call's error
    serve(roots, timeout, specs or ())
