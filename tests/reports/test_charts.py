"""A chart that cannot be drawn says so on its page instead of failing the whole report: the
note names the reason and keeps the figures of the alt text, a warning goes to stderr, no file
is left for the page to point at, and no figure stays open."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from kg import report  # noqa: E402
from kg.store import Store  # noqa: E402


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
