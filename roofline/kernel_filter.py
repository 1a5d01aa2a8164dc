"""The kernel-name filter of every command (``--kernel``): which launches of a report to analyse.

The language: ``NAME`` keeps the launches whose function name or demangled name equals NAME;
``regex:PATTERN`` keeps those where either name contains a match of the regular expression.
"""

from __future__ import annotations

import re
from dataclasses import replace

from roofline.errors import NoKernelMatched, RooflineError
from roofline.model import Report
from roofline.timelimit import REGEX_LIMIT_S, within

REGEX_PREFIX = "regex:"
SHOWN_NAMES = 8  # kernel names listed when a filter matches nothing


def filter_kernels(report: Report, pattern: str | None) -> Report:
    """``report`` with only the launches ``pattern`` selects (all of them for None or ""); NoKernelMatched
    listing the kernels present when it selects none, RooflineError for an invalid regular expression."""
    if not pattern:
        return report
    if pattern.startswith(REGEX_PREFIX):
        rx = _compile(pattern.removeprefix(REGEX_PREFIX))
        keep = within(REGEX_LIMIT_S, f"kernel regex '{rx.pattern}' on the names in {report.path}",
                      lambda: [k for k in report.launches if rx.search(k.name) or rx.search(k.demangled_name)])
    else:
        keep = [k for k in report.launches if pattern in (k.name, k.demangled_name)]
    if not keep:
        names = ", ".join(sorted({k.name for k in report.launches})[:SHOWN_NAMES])
        raise NoKernelMatched(f"{report.path}: no kernel matches '{pattern}'",
                              f"kernels in this report: {names}; use an exact name or regex:PATTERN")
    return replace(report, launches=tuple(keep))


def _compile(expr: str) -> re.Pattern[str]:
    try:
        return re.compile(expr)
    except re.error as err:
        raise RooflineError(f"invalid kernel regex '{expr}' ({err})", "fix the pattern after regex:") from None
