"""A chart that cannot be drawn says so on its page instead of failing the whole report: the
note names the reason and keeps the figures of the alt text, a warning goes to stderr, no file
is left for the page to point at, and no figure stays open."""
import shutil

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from kg import report  # noqa: E402
from kg.store import Store  # noqa: E402
from tests.conftest import EXAMPLES, run_kg  # noqa: E402


def site(tmp_path):
    return report.Site(Store(":memory:"), tmp_path, {})


def test_a_chart_matplotlib_refuses_becomes_a_note(tmp_path, capsys):
    # the shape of the W3C SHACL crash: an upper bound a hair below its value is a negative error
    # bar, which matplotlib's errorbar refuses (the finishers no longer produce one; the chart
    # must still not take the report down if some other row does)
    rows = [{"bar": "a · system", "v": 1.0, "lo": 0.96, "hi": 0.9999999999999998},
            {"bar": "b · system", "v": None, "lo": None, "hi": None}]
    s = site(tmp_path)
    html = str(s.rate_chart("pass-at-1", rows, "bar", "v", "lo", "hi", "pass@1 with Wilson 95% intervals"))
    assert "chart not drawn:" in html and "ValueError" in html and "must not contain negative values" in html
    assert "a · system 100.0% (95% interval 96.0% to 100.0%)" in html  # the figures are still on the page
    assert "not computable: b · system" in html
    assert "<img" not in html
    assert not (tmp_path / "charts" / "pass-at-1.svg").exists()
    assert "ValueError" in s.undrawn["pass-at-1"] and "pass-at-1" not in s.charts
    err = capsys.readouterr().err
    assert "warning: chart pass-at-1 not drawn: ValueError" in err
    assert plt.get_fignums() == []


def test_a_draw_function_that_raises_leaves_no_figure_open_and_escapes_its_reason(tmp_path, capsys):
    def draw(plt):
        plt.subplots()
        raise RuntimeError("<b>no axes</b> for this row")
    html = str(site(tmp_path).chart("broken", draw, "alt & figures"))
    assert "chart not drawn:</strong> RuntimeError: &lt;b&gt;no axes&lt;/b&gt; for this row. alt &amp; figures" in html
    assert plt.get_fignums() == []
    assert "chart broken not drawn" in capsys.readouterr().err


def test_a_chart_that_draws_is_an_image(tmp_path, capsys):
    rows = [{"bar": "a", "v": 1.0, "lo": 0.96, "hi": 1.0}, {"bar": "b", "v": 0.0, "lo": 0.0, "hi": 0.04}]
    s = site(tmp_path)
    html = str(s.rate_chart("ok", rows, "bar", "v", "lo", "hi", "title", root="../"))
    assert html.startswith('<img class="chart" src="../charts/ok.svg"')
    assert (tmp_path / "charts" / "ok.svg").read_text().lstrip().startswith("<?xml")
    assert s.undrawn == {} and capsys.readouterr().err == ""
    assert plt.get_fignums() == []


def test_a_label_with_dollar_signs_is_drawn_as_written(tmp_path, capsys):
    # a system or replay-set id like "cost$a^{$b" was read as matplotlib mathtext, which failed to
    # parse and crashed kg report; labels are text, never math
    rows = [{"bar": "cost$a^{$b · sys$1$", "v": 0.5, "lo": 0.4, "hi": 0.6},
            {"bar": r"$\frac{1}{0}$", "v": 0.2, "lo": 0.1, "hi": 0.3}]
    s = site(tmp_path)
    html = str(s.rate_chart("dollars", rows, "bar", "v", "lo", "hi", "title $x$"))
    assert html.startswith('<img class="chart"'), html
    svg = (tmp_path / "charts" / "dollars.svg").read_text()
    assert "cost$a^{$b · sys$1$" in svg and r"$\frac{1}{0}$" in svg  # the labels' own text, as written
    assert s.undrawn == {} and capsys.readouterr().err == ""


def compare_row(kind, grader, status="compared", **values):
    row = {"grader_kind": kind, "grader": grader, "status": status, "pass1_cases": 0, "paired_cases": 0}
    for column in ("pass_at_1_difference", "pass_rate_difference"):
        for end in ("", "_low", "_high"):
            row[column + end] = None
    row.update(values)
    return row


def test_the_compare_chart_draws_each_kind_apart_and_names_what_it_cannot_draw(tmp_path, capsys):
    rows = [compare_row("human", "urn:g:alice", paired_cases=2, pass_rate_difference=-0.25,
                        pass_rate_difference_low=-0.5, pass_rate_difference_high=0.0),
            compare_row("mechanical", "urn:g:check", pass1_cases=16, paired_cases=16, pass_at_1_difference=0.125,
                        pass_at_1_difference_low=-0.015, pass_at_1_difference_high=0.265,
                        pass_rate_difference=0.0, pass_rate_difference_low=0.0, pass_rate_difference_high=0.0),
            compare_row("model", "urn:g:judge", status="refused: another criterion digest")]
    s = site(tmp_path)
    html = str(s.compare_chart("compare-1", rows, "b − a"))
    assert html.startswith('<img class="chart" src="charts/compare-1.svg"')
    alt = s.charts["compare-1"]
    assert "human · urn:g:alice pass rate difference −25.0% [−25.0%, 0.0%]" not in alt  # the interval is the row's
    assert "human · urn:g:alice pass rate difference −25.0% [−50.0%, 0.0%] (n=2)" in alt
    assert "mechanical · urn:g:check pass@1 difference +12.5% [−1.5%, +26.5%] (n=16)" in alt
    assert "mechanical · urn:g:check pass rate difference 0.0% [0.0%, 0.0%] (n=16)" in alt  # a 0 is drawn, not dropped
    # never drawn as 0: a difference with no pair, and a refused comparison, are named under the chart
    assert "human · urn:g:alice pass@1 difference: not computable (0 pairs)" in html
    assert "model · urn:g:judge: refused: another criterion digest" in html
    svg = (tmp_path / "charts" / "compare-1.svg").read_text()
    assert svg.count("grader kind: ") == 2 and "grader kind: model" not in svg  # one panel per kind drawn
    assert "scale ±50% (fitted to the data)" in svg  # the widest bound is −50%: symmetric about 0
    assert plt.get_fignums() == [] and capsys.readouterr().err == ""


def test_a_compare_chart_with_nothing_to_draw_says_why(tmp_path):
    s = site(tmp_path)
    html = str(s.compare_chart("compare-2", [compare_row("model", "urn:g:judge", status="refused: digests differ")], "b − a"))
    assert "<img" not in html and "not drawn" in html and "refused: digests differ" in html
    assert "compare-2" in s.empty and not (tmp_path / "charts" / "compare-2.svg").exists()


def test_kg_report_of_a_system_id_with_dollar_signs_draws_its_charts(tmp_path):
    # issue 18 end to end: the routing examples with the system cubby@1.4.0 renamed cost$a^{$b (its
    # EARL and situations files rewritten), loaded and reported through the CLI; the id reaches the
    # charts as written, not as mathtext, and the report exits 0
    for name in ("cubby.ttl", "cubby-routing.replayset.json", "cubby-routing.gold.json"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    for name in ("cubby-routing.earl.jsonl", "cubby-routing.situations.jsonl"):
        (tmp_path / name).write_text((EXAMPLES / name).read_text().replace("cubby@1.4.0", "cost$a^{$b"))
    store, out = tmp_path / "store", tmp_path / "report"
    assert run_kg("load", "--store", store, *sorted(tmp_path.glob("cubby*"))).returncode == 0
    done = run_kg("report", "--store", store, "--out", out)
    assert (done.returncode, "Traceback" in done.stderr) == (0, False), done.stderr
    drawn = [svg.name for svg in (out / "charts").glob("*.svg") if "cost$a^{$b" in svg.read_text()]
    assert len(drawn) >= 3, drawn  # the pass^k charts of both kinds, the compare and trend charts


def test_a_matplotlib_warning_is_a_note_of_kg_naming_the_chart(tmp_path, capfd):
    """Issue 45: a matplotlib UserWarning reached stderr as Python prints it, with a path into
    matplotlib's source. Identical axis limits make matplotlib warn; kg says it once, as its own note."""
    from kg.report import Site
    from kg.store import Store
    site = Site(Store(":memory:"), tmp_path, {})

    def draw(plt):
        fig, ax = plt.subplots()
        ax.set_xlim(1, 1)
        return fig
    assert site._draw("flat", draw, "a flat chart") is not None
    err = capfd.readouterr().err
    assert "UserWarning" not in err and "site-packages" not in err and ".py:" not in err, err
    assert "kg report: note: chart flat: Attempting to set identical low and high xlims" in err
