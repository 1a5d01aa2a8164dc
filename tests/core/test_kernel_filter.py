"""roofline.core.kernel_filter: the --kernel language (NAME, exact:NAME, regex:PATTERN, OR-ed), the name it reads
(--kernel-name-base), its translation to ncu's -k, the regular expressions refused, and the message when
nothing matches (nearest names, another architecture's counterparts)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from msgspec.structs import replace

from roofline.core import kernel_filter
from roofline.core.kernel_filter import KernelFilter, ncu_escape, parse
from roofline.core.model import Device, KernelLaunch, Report
from roofline.errors import NoKernelMatched, RooflineError, UsageError

REPORT = Report("app.json", Device("Test GPU", compute_capability="8.0"), (
    KernelLaunch(0, 0, "gemm", demangled_name="void gemm<64>(float *)", mangled_name="_Z4gemmILi64EEvPf"),
    KernelLaunch(0, 1, "ampere_sgemm_128x64_nn"),
    KernelLaunch(0, 2, "copy", demangled_name="copy(float *, const float *)", mangled_name="_Z4copyPfPKf"),
    KernelLaunch(0, 3, "Sgemm"),
), source="model")


def kept(texts: list[str], base: kernel_filter.NameBase = "function") -> list[str]:
    return [k.name for k in parse(texts, base).select(REPORT).launches]


@pytest.mark.parametrize("texts, names", [
    ([], ["gemm", "ampere_sgemm_128x64_nn", "copy", "Sgemm"]),
    (["gemm"], ["gemm", "ampere_sgemm_128x64_nn", "Sgemm"]),  # a bare NAME is a part of the name
    (["sgemm"], ["ampere_sgemm_128x64_nn"]),  # case-sensitive, as ncu's regex: is
    (["ampere_sgemm"], ["ampere_sgemm_128x64_nn"]),
    (["exact:gemm"], ["gemm"]),
    (["exact:Sgemm"], ["Sgemm"]),
    (["regex:^g"], ["gemm"]),
    (["regex:(?i)^sgemm$"], ["Sgemm"]),
    (["copy", "exact:gemm"], ["gemm", "copy"]),  # several filters are OR-ed, the report order kept
    (["regex:_nn$", "regex:^S"], ["ampere_sgemm_128x64_nn", "Sgemm"]),
])
def test_filters_on_function_names(texts: list[str], names: list[str]) -> None:
    assert kept(texts) == names


@pytest.mark.parametrize("texts, base, names", [
    (["<64>"], "demangled", ["gemm"]),  # template arguments are in the demangled name only
    (["<64>"], "function", None),
    (["exact:void gemm<64>(float *)"], "demangled", ["gemm"]),
    (["float *"], "function", None),  # the function name has no parameters
    (["float *"], "demangled", ["gemm", "copy"]),
    (["regex:^_Z4"], "mangled", ["gemm", "copy"]),
    (["ampere_sgemm"], "mangled", ["ampere_sgemm_128x64_nn"]),  # a report without that name: the function name
])
def test_the_name_base_chooses_the_name_read(texts: list[str], base: kernel_filter.NameBase,
                                             names: list[str] | None) -> None:
    if names is None:
        with pytest.raises(NoKernelMatched):
            kept(texts, base)
    else:
        assert kept(texts, base) == names


@pytest.mark.parametrize("texts, ncu", [
    ([], None),
    (["ampere_sgemm"], "regex:ampere_sgemm"),
    (["exact:ampere_sgemm_128x64_nn"], "ampere_sgemm_128x64_nn"),
    (["regex:^ampere_.*_nn$"], "regex:^ampere_.*_nn$"),
    (["gemm<(int)64, float>(float *)"], r"regex:gemm<\(int\)64, float>\(float \*\)"),  # < > stay bare for Boost
    (["exact:regex:odd"], r"regex:^regex:odd$"),  # ncu would read a bare "regex:odd" as a pattern
    (["ampere_sgemm", "exact:gemm", "regex:a|b"], r"regex:ampere_sgemm|^gemm$|(?:a|b)"),
    (["exact:a.b", "exact:c"], r"regex:^a\.b$|^c$"),
])
def test_ncu_kernel_name_of_each_form(texts: list[str], ncu: str | None) -> None:
    assert parse(texts).ncu_kernel_name() == ncu


@pytest.mark.parametrize("texts", [["ampere_sgemm", "exact:gemm", "regex:^S"], ["a.b*c", "exact:x+(y)"],
                                   ["regex:_(nn|tn)$"]])
def test_the_ncu_alternation_selects_what_the_filters_select(texts: list[str]) -> None:
    """Python's re reading ncu's -k value keeps the same names as the filters themselves (a single exact name
    is ncu's own exact match, not a regex, so it is not part of this check)."""
    f = parse(texts)
    value = f.ncu_kernel_name()
    assert value is not None and value.startswith("regex:")
    names = ["gemm", "ampere_sgemm_128x64_nn", "Sgemm", "a.b*c", "axbbc", "x+(y)", "xy", "k_nn", "k_tn", "k_nt"]
    alternation = re.compile(value.removeprefix("regex:"))
    assert [n for n in names if alternation.search(n)] == [n for n in names if any(t.matches(n) for t in f.terms)]


def test_escaping_covers_the_boost_metacharacters_only() -> None:
    assert ncu_escape(".^$|?*+()[]{}\\") == "\\.\\^\\$\\|\\?\\*\\+\\(\\)\\[\\]\\{\\}\\\\"
    assert ncu_escape("op<int>, x::y & z") == "op<int>, x::y & z"


@pytest.mark.parametrize("text, message", [
    ("", "--kernel '': empty filter: give NAME, exact:NAME or regex:PATTERN"),
    ("exact:", "--kernel 'exact:': empty filter"),
    ("regex:", "--kernel 'regex:': empty filter"),
    ("regex:(", "--kernel regex '(': invalid regular expression ("),
    ("regex:[", "): fix the pattern after regex:"),
    ("regex:(?P<x>a)", "(?P...) groups are Python-only and ncu refuses them: use a plain group (...) or (?:...)"),
    (r"regex:\\(?P<x>a)", "(?P...) groups are Python-only"),  # an escaped backslash, then a real group
    ("regex:(?P=x)", "(?P...) groups are Python-only"),
    (r"regex:\N{DIGIT ONE}", r"\N{...} character names are not in ncu's regex syntax"),
    (r"regex:\<gemm\>", r"\< and \> are word boundaries for ncu but plain < and > for Python"),
    ("regex:[[:alpha:]]", "[:class:] sets are read differently by ncu and Python"),
    ("regex:a{,3}", "{,n} repeats for Python but is plain text for ncu: write {0,n}"),
])
def test_refused_filters_are_one_line(text: str, message: str) -> None:
    with pytest.raises(RooflineError) as err:
        parse([text])
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("pattern", [r"\(?P", r"a\{,3", r"\\<", r"[<>]"])
def test_escaped_lookalikes_are_accepted(pattern: str) -> None:
    """Only the real constructs are refused: an escaped bracket, or a backslash escaped itself, is fine."""
    term = parse([f"regex:{pattern}"]).terms[0]
    assert term.kind == "regex" and term.value == pattern


def test_a_single_string_is_one_filter() -> None:
    assert parse("ampere_sgemm").texts == ("ampere_sgemm",)


def test_no_match_lists_the_nearest_names() -> None:
    with pytest.raises(NoKernelMatched) as err:
        kept(["exact:ampere_sgemm"])
    assert str(err.value) == (
        "app.json: no kernel matches --kernel 'exact:ampere_sgemm': nearest function names: ampere_sgemm_128x64_nn, "
        "gemm, Sgemm, copy; a bare NAME matches part of a name, exact:NAME a whole name, regex:PATTERN a match")
    assert err.value.exit_code == 2


def test_a_regex_that_backtracks_for_ever_is_stopped_with_one_line() -> None:
    """Issue 15: a user regex could run for hours; it is stopped after timelimit.REGEX_LIMIT_S."""
    hostile = Report("app.json", Device("Test GPU"), (KernelLaunch(0, 0, "a" * 64 + "!"),), source="model")
    with pytest.raises(RooflineError) as err:
        parse(["regex:(a+)+$"]).select(hostile)
    assert str(err.value) == ("--kernel 'regex:(a+)+$' on the names in app.json took longer than 2 s and was stopped: "
                              "simplify the pattern: nested repeats such as (a+)+ or (.*)* backtrack exponentially "
                              "on long names")


def test_at_most_ten_nearest_names_most_similar_first() -> None:
    launches = tuple(KernelLaunch(0, i, f"kernel_{i:02d}") for i in range(30)) + (KernelLaunch(0, 30, "kernel_7x"),)
    report = Report("many.json", Device("Test GPU"), launches, source="model")
    with pytest.raises(NoKernelMatched) as err:
        parse(["exact:kernel_7"]).select(report)
    listed = str(err.value).split("nearest function names: ")[1].split(";")[0].split(", ")
    assert len(listed) == 10 and listed[0] in ("kernel_07", "kernel_7x") and "kernel_29" not in listed


def test_long_demangled_names_are_cut_in_the_middle_in_the_message() -> None:
    long = "void k<" + ", ".join(f"(int){i}" for i in range(100)) + ">(float *)"
    report = Report("t.json", Device("Test GPU"), (KernelLaunch(0, 0, "k", demangled_name=long),), source="model")
    with pytest.raises(NoKernelMatched) as err:
        parse(["nothing"], "demangled").select(report)
    shown = str(err.value).split("nearest demangled names: ")[1].split(";")[0]
    assert len(shown) == kernel_filter.SHOWN_NAME_CHARS and shown.startswith("void k<(int)0") and "…" in shown
    assert shown.endswith("(int)99>(float *)")


HOPPER = Report("h100.json", Device("NVIDIA H100 80GB HBM3", compute_capability="9.0"), (
    KernelLaunch(0, 0, "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_"
                       "segment_k_off_kernel__5x_cublas"),
    KernelLaunch(0, 1, "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
                       "segment_k_off_kernel__5x_cublas"),
    KernelLaunch(0, 2, "Kernel2", demangled_name="void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>"
                                                 "(T1::Params)"),
    KernelLaunch(0, 3, "elementwise_kernel"),
), source="model")


def test_another_architectures_library_kernel_names_its_counterparts() -> None:
    with pytest.raises(NoKernelMatched) as err:
        parse(["ampere_sgemm"]).select(HOPPER)
    message = str(err.value)
    assert ("'ampere_sgemm' names cuBLAS FP32 GEMM kernels for Ampere (sm_80); their counterparts on this Hopper "
            "GPU (NVIDIA H100 80GB HBM3, sm_90): sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_") in message
    counterparts = message.split("counterparts on this Hopper GPU (NVIDIA H100 80GB HBM3, sm_90): ")[1].split(";")[0]
    assert counterparts.split(", ") == [HOPPER.launches[0].name, "Kernel2"]  # FP32 operands only, no FP16 GEMM


def test_no_counterparts_for_a_plain_name_or_the_same_architecture() -> None:
    for report, text in ((HOPPER, "my_kernel"), (REPORT, "ampere_sgemm_64x64")):
        with pytest.raises(NoKernelMatched) as err:
            parse([text]).select(report)
        assert "counterparts" not in str(err.value)


def test_an_empty_filter_keeps_the_report_itself() -> None:
    assert KernelFilter().select(REPORT) is REPORT


def test_the_language_is_said_once_for_every_command_and_in_the_docs() -> None:
    """--kernel's help in each command is built from kernel_filter.LANGUAGE, docs/choosing-kernels.md quotes it
    once, and the README opens with the headline command as users type it."""
    import typer

    from roofline.cli.app import app

    group = typer.main.get_command(app)
    for name in ("analyze", "wrap", "report", "plot", "compare", "diff", "summary"):
        params = {p.name: p for p in group.commands[name].params}  # type: ignore[attr-defined]
        assert kernel_filter.LANGUAGE in params["kernel"].help and params["kernel"].multiple
        assert params["kernel_name_base"].help == kernel_filter.NAME_BASE_HELP
    repo = Path(__file__).resolve().parents[2]
    assert (repo / "docs" / "choosing-kernels.md").read_text().count(kernel_filter.LANGUAGE) == 1
    readme = (repo / "README.md").read_text()
    assert readme.index("roofline analyze --kernel ampere_sgemm app.py") < readme.index("\n## ")


def test_equal_filter_texts_make_equal_terms() -> None:
    """A term is its kind, value and text: two parses of one regex are equal and hash alike."""
    a, b = parse(["regex:^gemm_(a|b)$"]).terms[0], parse(["regex:^gemm_(a|b)$"]).terms[0]
    assert a == b and hash(a) == hash(b) and a.matches("gemm_a") and not a.matches("gemm_c")


INSTANCES = Report("lib.json", Device("Test GPU", compute_capability="8.0"), (
    KernelLaunch(0, 0, "Kernel", demangled_name="void cub::Kernel<(int)64, float>(cub::Params)"),
    KernelLaunch(0, 1, "Kernel", demangled_name="void cub::Kernel<(int)128, float>(cub::Params)"),
    KernelLaunch(0, 2, "copy", demangled_name="copy(float *, const float *)"),
), source="model")


@pytest.mark.parametrize("base", ["function", "demangled", "mangled"])
def test_exact_takes_a_template_instances_key_whatever_name_the_filter_reads(base: kernel_filter.NameBase) -> None:
    """``scope::function<arguments>``, the name summary's rows give a template instance (``kernel_key``), passed
    back as exact:NAME keeps that instance alone, not the other instance of the same function; a plain exact name
    is matched by the name the filter reads alone (the function name ``copy`` is no demangled name; these launches
    have no mangled name, so that base reads the function name)."""
    kept_ = parse(["exact:cub::Kernel<(int)128, float>"], base).select(INSTANCES).launches
    assert [k.demangled_name for k in kept_] == ["void cub::Kernel<(int)128, float>(cub::Params)"]
    if base != "demangled":
        assert [k.action_index for k in parse(["exact:copy"], base).select(INSTANCES).launches] == [2]
    else:
        with pytest.raises(NoKernelMatched):
            parse(["exact:copy"], base).select(INSTANCES)


def _ncu_selects(f: kernel_filter.KernelFilter, report: Report) -> list[int]:
    """The launches ncu's -k over its --kernel-name-base selects (a regex: search, else an exact name)."""
    value, base = f.ncu_kernel_name(), f.ncu_name_base()
    assert value is not None
    names = {k.action_index: kernel_filter.KernelFilter((), base).name_of(k) for k in report.launches}
    if value.startswith("regex:"):
        pattern = re.compile(value.removeprefix("regex:"))
        return [i for i, name in names.items() if pattern.search(name)]
    return [i for i, name in names.items() if name == value]


WITH_CUBLAS = replace(INSTANCES, launches=(*INSTANCES.launches, KernelLaunch(
    0, 3, "ampere_sgemm_128x64_nn", demangled_name="ampere_sgemm_128x64_nn")))  # extern "C": no parameter list


@pytest.mark.parametrize("texts", [["exact:cub::Kernel<(int)128, float>"],
                                   ["exact:cub::Kernel<(int)128, float>", "exact:copy"],
                                   ["exact:cub::Kernel<(int)128, float>", "exact:ampere_sgemm_128x64_nn"]])
@pytest.mark.parametrize("base", ["function", "demangled"])
def test_ncu_profiles_by_demangled_names_the_launches_a_key_keeps(base: kernel_filter.NameBase,
                                                                  texts: list[str]) -> None:
    """ncu reads no key: a filter holding one profiles by demangled names, the key's instance and each exact
    function name's demangled names (an extern "C" kernel's is its bare name), so that ncu's -s/-c count the
    launches the report keeps."""
    f = parse(texts, base)
    assert f.ncu_name_base() == "demangled"
    assert _ncu_selects(f, WITH_CUBLAS) == [k.action_index for k in f.select(WITH_CUBLAS).launches]
    assert parse(["exact:cub::Kernel<(int)128, float>"]).ncu_kernel_name() == \
        r"regex:^(void )?cub::Kernel<\(int\)128, float>\("


def test_a_key_beside_a_filter_that_reads_function_names_is_refused_for_ncu() -> None:
    """A key (profiled by demangled names) beside NAME or regex: over function names cannot be given to one ncu -k
    that counts the same launches: refused in one line, naming the fix."""
    with pytest.raises(UsageError, match="--kernel-name-base demangled"):
        parse(["exact:cub::Kernel<(int)128, float>", "copy"]).ncu_name_base()
    with pytest.raises(UsageError, match="exact:_Z4copyPfPKf"):  # a mangled name: no demangled reading of it
        parse(["exact:cub::Kernel<(int)128, float>", "exact:_Z4copyPfPKf"], "mangled").ncu_name_base()
    key = parse(["exact:cub::Kernel<(int)128, float>"], "mangled")
    assert key.ncu_name_base() == "demangled" and _ncu_selects(key, INSTANCES) == [1]
    assert parse(["exact:cub::Kernel<(int)128, float>", "copy"], "demangled").ncu_name_base() == "demangled"


def test_a_plain_exact_name_keeps_its_own_ncu_name_and_base() -> None:
    """Without a key, ncu gets the exact name over the filter's own base, as before."""
    for base in ("function", "demangled", "mangled"):
        f = parse(["exact:copy"], base)
        assert f.ncu_kernel_name() == "copy" and f.ncu_name_base() == base
    assert parse(["exact:void gemm<64>(float *)"], "demangled").ncu_kernel_name() == "void gemm<64>(float *)"
