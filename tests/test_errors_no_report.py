"""roofline.errors.NoReportAnalysed: where docs/python-api.md says the error subclasses are, and still importable
from roofline.facade."""

from __future__ import annotations

from pathlib import Path

import pytest

import roofline.errors
import roofline.facade
from roofline.errors import NoReportAnalysed, ReportError, RooflineError


def test_no_report_analysed_lives_in_roofline_errors_and_the_facade_gives_the_same_class():
    assert NoReportAnalysed.__module__ == "roofline.errors"
    assert roofline.facade.NoReportAnalysed is roofline.errors.NoReportAnalysed
    assert issubclass(NoReportAnalysed, RooflineError)


def test_every_file_bad_raises_it_with_each_files_error_and_the_worst_exit_status(tmp_path: Path):
    bad = [tmp_path / f"bad{i}.roofline.json" for i in (1, 2)]
    for path in bad:
        path.write_text("{")
    with pytest.raises(roofline.errors.NoReportAnalysed) as every:
        roofline.facade.Roofline().report(bad)
    assert len(every.value.errors) == 2 and all(isinstance(e, ReportError) for e in every.value.errors)
    assert every.value.exit_code == 2 and str(every.value) == "; ".join(map(str, every.value.errors))
