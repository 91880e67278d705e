"""Charts: static SVG drawn by matplotlib, each with its text alternative, fitted to its data and
saying its scale; a chart that cannot be drawn is a note on its page, never a failed report. The
Site's Charts part is what templates call (`rate_chart`, `compare_chart`, `trend_chart`)."""
from __future__ import annotations

import re
import sys
from html import unescape as html_unescape
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from ..cache import keep
from ..status import status_kind
from .cells import brief, pct, signed
from .files import write as _write


class Charts:
    """The Site's drawing: each chart kept beside the store's answers, so an unchanged store redraws nothing."""

    def chart(self, name: str, draw, alt: str, root: str = "", key: Any = None,
              links: dict[str, str] | None = None) -> Markup:
        """Draws a chart with matplotlib into charts/<name>.svg; returns its <img> with alt text.
        A chart that cannot be drawn does not fail the report: the page says so in its place, with
        the figures of the alt text, and a warning goes to stderr.

        `key` is everything the drawing depends on (its figures, labels and scale): a chart drawn
        before from the same key (kept beside the answers of the store's state, with kg's and
        matplotlib's versions) is copied, not drawn again, so a report of an unchanged store
        redraws nothing. With `links` (the URL, from the page, of each bar's own page: the URL as
        set_url wrote it → the name it is announced by), the SVG is put in the page itself, each bar
        a link (an <img>'s links cannot be followed), its text alternative the <svg>'s aria-label."""
        kept = self._kept_chart(name, key)
        svg = None
        if kept is not None and kept.is_file():
            try:
                svg = kept.read_text(encoding="utf-8")
            except OSError:
                svg = None
        if svg is None:
            svg = self._draw(name, draw, alt)
            if svg is None:
                reason = self.undrawn[name]
                return Markup(f'<p class="chart-not-drawn" role="note"><strong>chart not drawn:</strong> '
                              f'{escape(reason)}. {escape(alt)}</p>')
            if kept is not None:
                keep(kept, svg)
        self.charts[name] = alt
        if links is not None:
            return inline_svg(name, svg, alt, links)
        _write(self.out / "charts" / f"{name}.svg", svg)
        return Markup(f'<img class="chart" src="{root}charts/{name}.svg" alt="{escape(alt)}">')

    def _kept_chart(self, name: str, key: Any) -> Path | None:
        """Where a chart of this name and key is kept: None without a key or an answer cache."""
        return None if key is None else self._kept("charts", [name, key], "svg")

    def _draw(self, name: str, draw, alt: str) -> str | None:
        """The SVG text of `draw(plt)`, or None with the reason in self.undrawn[name]."""
        import io

        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        plt.rcParams["svg.hashsalt"] = "kg"  # the same data draws the same file
        # labels are ids and names, never math: "cost$a^{$b" as mathtext failed and crashed kg report
        plt.rcParams["text.parse_math"] = False
        before = set(plt.get_fignums())
        import warnings
        try:
            # matplotlib's warnings (identical axis limits, say) came out as Python's, with a source path
            # of matplotlib's: each is said once as kg's own note, naming the chart
            with warnings.catch_warnings(record=True) as noted:
                warnings.simplefilter("always")
                fig = draw(plt)
                buffer = io.StringIO()
                fig.savefig(buffer, format="svg", metadata={"Date": None})
            for message in dict.fromkeys(str(w.message) for w in noted):
                print(f"kg report: note: chart {name}: {message}", file=sys.stderr)
            return buffer.getvalue()
        except Exception as err:  # noqa: BLE001 - any drawing fault becomes a note on the page
            reason = f"{type(err).__name__}: {err}".strip()
            self.undrawn[name] = reason
            (self.out / "charts" / f"{name}.svg").unlink(missing_ok=True)  # no file for the page to point at
            print(f"kg report: warning: chart {name} not drawn: {reason}", file=sys.stderr)
            return None
        finally:
            for number in set(plt.get_fignums()) - before:
                plt.close(number)


    def rate_chart(self, name: str, rows: list[dict], label: str, value: str, low: str, high: str,
                   title: str, root: str = "", count: str | None = None, total: str | None = None,
                   empty: str | None = None, link: str | None = None) -> Markup:
        """Horizontal bars of a rate with its interval as whiskers, each labelled with its value and,
        given `count` and `total`, n/N; the axis fitted to the data (its scale said in the axis title);
        a 0 drawn as a visible tick. Rows without a value are listed as "not computable" rather than
        drawn as 0; with none to draw, the chart says why (`empty`) in its place. Given `link` (a
        row's key holding the URL, from the page, of the rows behind its figure), each bar and its
        label link there (the chart is then put in the page: see chart)."""
        shown = [r for r in rows if r.get(value) is not None]
        missing = [r[label] for r in rows if r.get(value) is None]
        if not shown:
            reason = empty or "no row has a value to draw"
            self.empty[name] = reason
            return Markup(f'<p class="chart-empty" role="note"><strong>{escape(title)}: not drawn</strong> — '
                          f'{escape(reason)}.</p>')
        top = max(max(r[value], r.get(high) if r.get(high) is not None else r[value]) for r in shown)
        limit = 1.0 if top > 0.5 else next(x for x in (0.05, 0.1, 0.2, 0.3, 0.5) if top <= x)

        def fraction(r):
            return f" ({r.get(count)}/{r.get(total)})" if count and total and r.get(total) is not None else ""

        def draw(plt):
            names = [wrapped(str(r[label])) for r in shown]
            lines = max(n.count("\n") + 1 for n in names)
            fig, ax = plt.subplots(figsize=(fitted_width(names, 8), (0.22 + 0.2 * lines) * max(len(shown), 1) + 1.3))
            ys = list(range(len(shown)))
            values = [r[value] for r in shown]
            errors = [[r[value] - (r[low] if r.get(low) is not None else r[value]) for r in shown],
                      [(r[high] if r.get(high) is not None else r[value]) - r[value] for r in shown]]
            bars = ax.barh(ys, values, xerr=errors, color="#4c72b0", ecolor="#222", capsize=3)
            if link:
                for bar, r in zip(bars, shown):
                    if r.get(link):
                        bar.set_url(r[link])
            for y, r in zip(ys, shown):  # a bar of 0 has no width: a mark shows it is there, and is 0
                if r[value] == 0:
                    mark, = ax.plot([0], [y], marker="D", markersize=6, color="#c62828", linestyle="none",
                                    clip_on=False, zorder=5)
                    if link and r.get(link):
                        mark.set_url(r[link])  # the mark is the bar to click
            for y, r in zip(ys, shown):
                note = ax.annotate(f"{pct(r[value])}{fraction(r)}", (r[value], y), xytext=(4, 5),
                                   textcoords="offset points", fontsize=7, va="bottom")
                if link and r.get(link):
                    note.set_url(r[link])
            ax.set_yticks(ys, names, fontsize=8)
            if link:
                for tick, r in zip(ax.get_yticklabels(), shown):
                    if r.get(link):
                        tick.set_url(r[link])
            ax.invert_yaxis()
            ax.set_xlim(0, limit)
            ax.xaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
            ax.set_xlabel(f"scale 0–{pct(limit, 0)}" + (" (fitted to the data)" if limit < 1 else ""), fontsize=8)
            ax.set_title(title, fontsize=10)
            ax.grid(axis="x", alpha=0.3)
            fig.tight_layout()
            return fig
        alt = f"{title}: " + "; ".join(f"{r[label]} {pct(r[value])}{fraction(r)} (95% interval {pct(r.get(low))} to "
                                      f"{pct(r.get(high))})" for r in shown)
        if missing:
            alt += "; not computable: " + ", ".join(missing)
        key = ["rate", title, limit, [(r[label], r[value], r.get(low), r.get(high), fraction(r), r.get(link) if link else None)
                                      for r in shown]]
        links = None
        if link:
            links = {r[link]: f"{r[label]}: {pct(r[value])}{fraction(r)}, the rows behind it" for r in shown if r.get(link)}
        return self.chart(name, draw, alt, root, key=key, links=links)

    def compare_chart(self, name: str, rows: list[dict], title: str, root: str = "") -> Markup:
        """The `compare` rows of one replay set as small multiples, one panel per grader kind (never
        pooled), one line per grader and measure: the pass@1 difference over the pass@1 pairs and the
        pass-rate difference over the paired cases (candidate − baseline), each a point with its 95%
        interval as whiskers, labelled with the value, interval and n; a line at 0; the axis fitted to
        the data, symmetric about 0, its scale said. Refused rows, and differences that cannot be
        computed (no pair), are not drawn as 0: they are named under the panels and in the text."""
        lines, missing = {}, []
        for r in rows:
            who = f"{r['grader_kind']} · {brief(self.label(r['grader']))}"
            if status_kind(r.get("status")) != "compared":  # "compared: N case(s) refused" is compared
                missing.append(f"{who}: {r.get('status')}")
                continue
            for measure, column, n, unit in (("pass@1", "pass_at_1_difference", "pass1_cases", "pairs"),
                                              ("pass rate", "pass_rate_difference", "paired_cases", "paired cases")):
                if r.get(column) is None:
                    missing.append(f"{who} {measure} difference: not computable ({r.get(n) or 0} {unit})")
                    continue
                lines.setdefault(r["grader_kind"], []).append({
                    "label": f"{wrapped(brief(self.label(r['grader'])))}\n{measure} (n={r.get(n)})", "who": who, "measure": measure,
                    "value": r[column], "low": r.get(f"{column}_low"), "high": r.get(f"{column}_high"), "n": r.get(n)})
        if not lines:
            reason = "no grader has a difference to draw" + (f" ({'; '.join(missing)})" if missing else "")
            self.empty[name] = reason
            return Markup(f'<p class="chart-empty" role="note"><strong>{escape(title)}: not drawn</strong> — '
                          f'{escape(reason)}.</p>')
        top = max(abs(x) for entries in lines.values() for e in entries
                  for x in (e["value"], e["low"], e["high"]) if x is not None)
        limit = next((x for x in (0.05, 0.1, 0.2, 0.3, 0.5, 1.0) if top <= x), 1.0)

        def interval(e):
            return "" if e["low"] is None else f" [{signed(e['low'])}, {signed(e['high'])}]"

        def draw(plt):
            kinds = sorted(lines)
            heights = [len(lines[k]) for k in kinds]
            fig, axes = plt.subplots(len(kinds), 1, sharex=True, squeeze=False,
                                     figsize=(fitted_width([e["label"] for k in kinds for e in lines[k]], 7),
                                              0.55 * sum(heights) + 0.9 * len(kinds) + 0.6),
                                     gridspec_kw={"height_ratios": heights})
            for ax, kind in zip(axes[:, 0], kinds):
                entries = lines[kind]
                ys = list(range(len(entries)))
                values = [e["value"] for e in entries]
                errors = [[e["value"] - (e["low"] if e["low"] is not None else e["value"]) for e in entries],
                          [(e["high"] if e["high"] is not None else e["value"]) - e["value"] for e in entries]]
                colours = ["#c62828" if v < 0 else "#2e7d32" if v > 0 else "#555" for v in values]
                ax.axvline(0, color="#222", linewidth=0.8)
                for y, v, lo, hi, c in zip(ys, values, errors[0], errors[1], colours):
                    ax.errorbar([v], [y], xerr=[[lo], [hi]], fmt="o", color=c, ecolor="#222", capsize=3)
                for y, e in zip(ys, entries):
                    ax.annotate(f"{signed(e['value'])}{interval(e)}", (e["value"], y), xytext=(0, 6),
                                textcoords="offset points", fontsize=7, ha="center", va="bottom")
                ax.set_yticks(ys, [e["label"] for e in entries], fontsize=7)
                ax.set_ylim(len(entries) - 0.4, -0.7)
                ax.set_title(f"grader kind: {kind}", fontsize=9, loc="left")
                ax.grid(axis="x", alpha=0.3)
            axes[-1, 0].set_xlim(-limit, limit)
            axes[-1, 0].xaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
            axes[-1, 0].set_xlabel(f"candidate − baseline, scale ±{pct(limit, 0)}"
                                   + (" (fitted to the data)" if limit < 1 else ""), fontsize=8)
            fig.suptitle(title, fontsize=10)
            fig.tight_layout()
            return fig
        alt = f"{title}: " + "; ".join(f"{e['who']} {e['measure']} difference {signed(e['value'])}{interval(e)} (n={e['n']})"
                                      for kind in sorted(lines) for e in lines[kind])
        if missing:
            alt += "; not drawn: " + "; ".join(missing)
        drawn = self.chart(name, draw, alt, root, key=["compare", title, limit, lines])
        if missing:
            drawn += Markup('<p class="note chart-missing">Not drawn: ') + "; ".join(missing) + Markup(".</p>")
        return drawn


    def trend_chart(self, name: str, points: list, title: str, root: str = "", threshold: float | None = None) -> Markup:
        """A line over time: `points` are (time, value) pairs, or dicts with date, value and, for the
        labels, system, passed and cases. The axis is fitted to the data and its scale said."""
        points = [p if isinstance(p, dict) else {"date": p[0], "value": p[1]} for p in points]
        if not points:
            self.empty[name] = "no dated point"
            return Markup(f'<p class="chart-empty" role="note"><strong>{escape(title)}: not drawn</strong> — '
                          f'no dated point to place on a time line.</p>')
        top = max([p["value"] for p in points] + ([threshold] if threshold is not None else []))
        limit = 1.0 if top > 0.5 else next(x for x in (0.05, 0.1, 0.2, 0.3, 0.5) if top <= x)

        def tag(p):
            return " ".join(x for x in (self.label(p.get("system")) if p.get("system") else "",
                                        f"{p['passed']}/{p['cases']}" if p.get("cases") is not None else "") if x)

        def draw(plt):
            fig, ax = plt.subplots(figsize=(7.5, 2.8))
            xs = list(range(len(points)))
            ax.plot(xs, [p["value"] for p in points], marker="o", color="#4c72b0")
            for x, p in zip(xs, points):
                ax.annotate(f"{pct(p['value'])} {tag(p)}".strip(), (x, p["value"]), xytext=(0, 6),
                            textcoords="offset points", fontsize=7, ha="center")
            ax.set_xticks(xs, [str(p["date"])[:16].replace("T", " ") for p in points], rotation=30,
                          fontsize=7, ha="right")
            if threshold is not None:  # the gate: a line, and whether the latest point is above it
                ax.axhline(threshold, color="#c62828", linestyle="--", linewidth=1)
                ax.annotate(f"gate {pct(threshold)}: {gate(points[-1]['value'], threshold)}", (0, threshold),
                            xytext=(2, 3), textcoords="offset points", fontsize=7, color="#c62828")
            ax.set_ylim(0, limit * 1.08)
            ax.yaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
            ax.set_ylabel(f"scale 0–{pct(limit, 0)}", fontsize=8)
            ax.set_title(title, fontsize=10)
            ax.grid(alpha=0.3)
            fig.tight_layout()
            return fig
        alt = f"{title}: " + "; ".join(f"{p['date']} {pct(p['value'])} {tag(p)}".strip() for p in points)
        if threshold is not None:
            alt += f"; gate {pct(threshold)}: the latest {gate(points[-1]['value'], threshold)}"
        return self.chart(name, draw, alt, root, key=["trend", title, limit, threshold,
                                                      [(p["date"], p["value"], tag(p)) for p in points]])


def gate(value: float, threshold: float) -> str:
    """Whether a figure passes a gate of `threshold` (below it fails, as kg report coverage --fail-under)."""
    return "passes" if value >= threshold else "fails"


def wrapped(text: str, width: int = 38) -> str:
    """A chart's label over lines of about `width` characters, broken after " · " where it can."""
    lines, line = [], ""
    for part in text.split(" · "):
        candidate = f"{line} · {part}" if line else part
        if line and len(candidate) > width:
            lines.append(line + " ·")
            line = part
        else:
            line = candidate
    lines.append(line)
    return "\n".join(lines)


def fitted_width(labels: list[str], points: float) -> float:
    """A figure's width in inches holding its longest label line (font of `points`) beside a plot
    of about 5 inches: long labels widen the figure rather than squeeze the plot."""
    longest = max((len(line) for label in labels for line in str(label).split("\n")), default=0)
    return max(7.5, 5.0 + longest * points * 0.0085)


_SVG_ID = re.compile(r'\bid="([^"]+)"')


def inline_svg(name: str, svg: str, alt: str, links: dict[str, str]) -> Markup:
    """matplotlib's SVG made part of an HTML page: no XML declaration or doctype; every id prefixed
    with the chart's name (two charts of one page must not share an id, and a clip path must be the
    chart's own); each link written as `href` (SVG 2), which HTML resolves from the page, with the
    name it is announced by; the text alternative as the <svg>'s aria-label (role="group": its
    links stay links for assistive technology), and its width fitted to the page as an <img>'s is."""
    body = svg[svg.index("<svg"):]
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", name) + "--"
    ids = set(_SVG_ID.findall(body))
    body = _SVG_ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', body)
    body = re.sub(r'(url\(#|xlink:href="#|href="#)([^")]+)',
                  lambda m: m.group(1) + (prefix + m.group(2) if m.group(2) in ids else m.group(2)), body)

    def anchor_tag(match):
        url = html_unescape(match.group(1))
        words = links.get(url, "")
        return Markup('<a href="{}" aria-label="{}">').format(url, words)
    # (matplotlib writes target="_blank": a bar's page opens in place, as the table's figure does)
    body = re.sub(r'<a xlink:href="([^"#][^"]*)"[^>]*>', lambda m: str(anchor_tag(m)), body)
    body = body.replace("<svg ", Markup('<svg class="chart chart-linked" data-chart="{}" role="group" aria-label="{}" ')
                        .format(name, alt), 1)
    return Markup(body)


