"""kiln's pictures, drawn with matplotlib (Debian's python3-matplotlib).

The kiln module imports this file when a plot is asked for: kiln.plot_profile,
kiln.plot_estimate and kiln.plot_csim take the dicts kiln returns (and the CLI's
--json prints), and either return the matplotlib Figure or, given a file name,
save it there (the format from the extension: .png, .svg, .pdf).

The CLI runs it as a program for `kiln profile --plot FILE` and `kiln report
--html FILE`:

    python3 kiln_plot.py profile PROFILE.json FILE
    python3 kiln_plot.py report REPORT.json FILE.html

The HTML report is one self-contained file: its pictures are inline SVG (no
script, font or image from anywhere else), and a few lines of script mark
each figure whose drawing the browser laid out (data-rendered="yes"), which is
what the browser test checks.
"""

import html
import io
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")  # files, not windows: works without a display
import matplotlib.pyplot as plt  # noqa: E402

_TYPE = re.compile(r"ap_(u?)(fixed|int)<\s*(\d+)\s*(?:,\s*(-?\d+))?")


def type_span(text):
    """(log2 of the smallest step, log2 of the largest magnitude) of an ap type."""
    m = _TYPE.match(text or "")
    if not m:
        return None
    unsigned, kind, width = m.group(1) == "u", m.group(2), int(m.group(3))
    integer = width if kind == "int" else int(m.group(4))
    frac = width - integer
    top = integer if unsigned else integer - 1
    return -frac, top


def _finish(fig, file):
    fig.tight_layout()
    if file:
        fig.savefig(file, dpi=110)
        plt.close(fig)
    return fig


def plot_profile(profile, file=None, types=None):
    """Per layer, the spread of its weights, biases and results (log2 of the
    magnitudes, one box from the smallest to the largest power of two seen,
    shaded by how many values fall in each) against the range and resolution
    of its types: `types` maps a layer name to {"weight": "ap_fixed<8,3>", ...}
    (default: the types the profile suggests). A layer whose values reach past
    the top of its type is drawn red: it overflows."""
    kinds = [("weight", "#1f77b4"), ("bias", "#2ca02c"), ("result", "#ff7f0e")]
    rows = []
    for layer in profile["layers"]:
        chosen = (types or {}).get(layer["name"]) or layer.get("suggested") or {}
        for kind, color in kinds:
            r = layer.get(kind)
            if r and r.get("log2") and r["log2"]["counts"]:
                rows.append((layer, kind, color, r, chosen.get(kind)))
    fig, ax = plt.subplots(figsize=(9, 0.32 * max(len(rows), 4) + 1.2))
    labels = []
    for y, (layer, kind, color, r, t) in enumerate(rows):
        lo, counts = r["log2"]["lo"], r["log2"]["counts"]
        total = max(sum(counts), 1)
        span = type_span(t)
        over = span is not None and max(abs(r["min"]), abs(r["max"])) > 2.0 ** span[1]
        if span:  # the type: from its resolution to its largest magnitude
            ax.barh(y, span[1] - span[0], left=span[0], height=0.8, color="#dddddd", zorder=1)
        for i, c in enumerate(counts):
            if c:
                ax.barh(y, 1, left=lo + i, height=0.5, color="#d62728" if over else color,
                        alpha=0.25 + 0.75 * c / total, zorder=2)
        labels.append(f"{layer['name']} {kind}" + ("  (overflows)" if over else ""))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=8)
    for tick, (_, _, _, r, t) in zip(ax.get_yticklabels(), rows):
        span = type_span(t)
        if span is not None and max(abs(r["min"]), abs(r["max"])) > 2.0 ** span[1]:
            tick.set_color("#d62728")
    ax.invert_yaxis()
    ax.set_xlabel("log2 |value| (grey: the type, from its resolution to its largest magnitude)")
    ax.set_title(f"Precision profile ({profile.get('samples', '?')} samples)")
    ax.grid(axis="x", alpha=0.3)
    return _finish(fig, file)


def plot_estimate(estimate, file=None):
    """Per-layer latency (cycles) and resources as a share of the device."""
    layers = [l for l in estimate.get("layers", []) if l.get("layer")]
    names = [l["layer"] for l in layers]
    device = estimate.get("device") or {}
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 0.35 * max(len(names), 4) + 1.5))
    a.barh(names, [l.get("latency", 0) for l in layers], color="#1f77b4")
    a.set_xlabel("latency (cycles)")
    a.invert_yaxis()
    a.set_title("latency per layer")
    width = 0.2
    for i, (key, color) in enumerate(
            [("lut", "#1f77b4"), ("ff", "#2ca02c"), ("dsp", "#d62728"), ("bram18", "#9467bd")]):
        have = device.get(key)
        share = [100.0 * l.get(key, 0) / have if have else 0 for l in layers]
        b.barh([y + (i - 1.5) * width for y in range(len(layers))], share, height=width,
               color=color, label=key.upper())
    b.set_yticks(range(len(layers)))
    b.set_yticklabels(names)
    b.invert_yaxis()
    b.axvline(100, color="black", linewidth=1)
    b.set_xlabel(f"share of {device.get('name', 'the device')} (%)")
    b.set_title("resources per layer")
    b.legend(fontsize=8)
    return _finish(fig, file)


def plot_csim(result, file=None):
    """The C simulation's error against the float model (a histogram of
    log10 |csim - float| over every output value) and overflows per layer."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    ref = result.get("float_reference") or {}
    h = ref.get("error_histogram")
    if h:
        edges, counts = h["log10_edges"], h["counts"]
        a.bar(edges[:-1], counts, width=edges[1] - edges[0], align="edge", color="#1f77b4")
        a.set_title(f"|csim - float|: {h['zero']} exact, max {ref.get('max_abs_error', 0):.3g}")
    else:
        a.set_title("no float model to compare with")
    a.set_xlabel("log10 |csim - float|")
    a.set_ylabel("output values")
    layers = result.get("overflow", [])
    names = [l["layer"] for l in layers]
    b.barh(names, [l["wrapped"] for l in layers], color="#d62728", label="wrapped")
    b.barh(names, [l["saturated"] for l in layers], left=[l["wrapped"] for l in layers],
           color="#ff7f0e", label="saturated")
    b.invert_yaxis()
    b.set_xlabel("values out of range, over the samples")
    if any(l["wrapped"] or l["saturated"] for l in layers):
        b.set_title("overflows per layer")
        b.legend(fontsize=8)
    else:  # an empty chart would look like a drawing that failed
        b.set_xlim(0, 1)
        b.set_title(f"no layer overflowed in {result.get('samples', '?')} samples")
    return _finish(fig, file)


def _svg(fig):
    out = io.StringIO()
    fig.savefig(out, format="svg")
    plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg"):]  # without the XML prologue


def _table(rows):
    head, *body = rows
    cells = "".join(f"<th>{html.escape(str(c))}</th>" for c in head)
    lines = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>"
                    for r in body)
    return f"<table><tr>{cells}</tr>{lines}</table>"


def report_html(report):
    """The HTML report of a project: its estimate (table and plot), the
    precision profile against the project's types, and the last C simulation
    when there is one."""
    est = report["estimate"]
    device = est.get("device") or {}
    rows = [["layer", "II", "latency", "DSP", "BRAM18", "LUT", "FF"]]
    for l in est["layers"] + [dict(est["total"], layer="total")]:
        rows.append([l["layer"], l["ii"], l["latency"], l["dsp"], l["bram18"], l["lut"], l["ff"]])
    if device:
        t = est["total"]
        rows.append([device["name"], "", "",
                     *(f"{100.0 * t[k] / device[k]:.1f}%" if device.get(k) else "-"
                       for k in ("dsp", "bram18", "lut", "ff"))])
    figures = [("Estimate", "Per-layer latency and resources against the device.",
                plot_estimate(est))]
    if report.get("profile"):
        figures.append(("Precision profile",
                        "Each layer's values (log2 of the magnitudes) against its types' range "
                        "and resolution, on " + report.get("profile_source", "random inputs") +
                        " (" + str(report["profile"].get("samples")) + " samples); red layers "
                        "overflow.",
                        plot_profile(report["profile"], types=report.get("types"))))
    if report.get("csim"):
        c = report["csim"]
        figures.append(("C simulation",
                        f"{c['bit_exact_samples']}/{c['samples']} samples bit-exact with kiln's "
                        "emulator; the error against the float model and overflows per layer.",
                        plot_csim(c)))
    parts = []
    for i, (title, text, fig) in enumerate(figures):
        parts.append(f'<section><h2>{html.escape(title)}</h2><p>{html.escape(text)}</p>'
                     f'<figure id="plot{i}" class="plot">{_svg(fig)}</figure></section>')
    name = html.escape(report.get("model", "model"))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kiln report: {name}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; max-width: 1100px; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 2px 8px; text-align: right; }}
th {{ background: #f0f0f0; }}
figure {{ margin: 0; }} figure svg {{ max-width: 100%; height: auto; }}
</style></head>
<body data-plots="{len(figures)}">
<h1>kiln report: {name}</h1>
<p>Part {html.escape(str(report.get("part", "")))}, clock {report.get("clock_ns", "")} ns.
The latency and resources are kiln's estimate (no vendor tool ran).</p>
{_table(rows)}
{"".join(parts)}
<script>
// Mark each figure whose drawing the browser laid out with a size.
let drawn = 0;
for (const f of document.querySelectorAll("figure.plot")) {{
  const svg = f.querySelector("svg");
  const box = svg ? svg.getBBox() : null;
  const ok = box && box.width > 50 && box.height > 50 && svg.querySelectorAll("path").length > 5;
  f.dataset.rendered = ok ? "yes" : "no";
  if (ok) drawn++;
}}
document.body.dataset.rendered = String(drawn);
</script>
</body></html>
"""


def plot_frontier(frontier, file=None):
    """kiln explore's frontier: each point's latency (log scale) against its
    LUTs and DSPs as shares of the part, the chosen point ringed and the
    validated ones marked."""
    pts = frontier["points"]
    cap = frontier.get("capacity") or {}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, key, label in ((axes[0], "lut", "LUT"), (axes[1], "dsp", "DSP")):
        x = [p["latency_cycles"] for p in pts]
        scale = 100.0 / cap[key] if cap.get(key) else 1.0
        y = [p[key] * scale for p in pts]
        ax.step(x, y, where="post", color="#bbbbbb", zorder=1)
        ax.scatter(x, y, s=22, color="#1f77b4", zorder=2, label="frontier point")
        c = frontier.get("chosen", 0)
        if 0 <= c < len(pts):
            ax.scatter([x[c]], [y[c]], s=160, facecolors="none", edgecolors="#d62728",
                       linewidths=2, zorder=3, label="chosen")
        val = [i for i, p in enumerate(pts) if p.get("validated")]
        if val:
            ax.scatter([x[i] for i in val], [y[i] for i in val], s=70, marker="s",
                       facecolors="none", edgecolors="#2ca02c", linewidths=1.5, zorder=4,
                       label="built, simulated bit-exact")
        ax.set_xscale("log")
        ax.set_xlabel("latency (cycles, log scale)")
        ax.set_ylabel(f"{label} (% of {frontier.get('part', 'the part')})" if cap.get(key)
                      else label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(loc="upper right", fontsize=8)
    fig.suptitle(f"{frontier.get('model', '')}: {len(pts)} frontier points of "
                 f"{frontier.get('points_priced', 0):,} designs priced")
    fig.tight_layout()
    return _finish(fig, file)


def _design_section(report, where):
    """The chosen point's design (its report.json): each stage's plan, start,
    cycles and resources, the design's total and its share of the part."""
    if not report:
        return ""
    rows = [["stage", "plan", "start", "latency", "interval", "LUT", "FF", "DSP", "BRAM18"]]
    for st in report.get("stages", []):
        e = st.get("estimate", {})
        rows.append([st.get("name", ""), st.get("plan", ""),
                     st.get("start_cycle", ""), st.get("latency_cycles", ""),
                     st.get("interval_cycles", ""), f"{e.get('lut', 0):.0f}",
                     f"{e.get('ff', 0):.0f}", f"{e.get('dsp', 0):.0f}",
                     f"{e.get('bram18', 0):.0f}"])
    t = report.get("estimate", {})
    rows.append(["design", "", "", report.get("latency_cycles", ""),
                 report.get("interval_cycles", ""), f"{t.get('lut', 0):.0f}",
                 f"{t.get('ff', 0):.0f}", f"{t.get('dsp', 0):.0f}", f"{t.get('bram18', 0):.0f}"])
    dev = report.get("device") or {}
    if dev:
        rows.append([dev.get("name", ""), "share of the part", "", "", "",
                     *(f"{100.0 * t.get(k, 0) / dev[k]:.1f}%" if dev.get(k) else "-"
                       for k in ("lut", "ff", "dsp", "bram18"))])
    return (f'<section id="rtl"><h2>RTL design of the chosen point</h2>\n'
            f'<p>Built in <code>{html.escape(str(where))}/</code> from its config, as kiln rtl '
            f'builds it: {len(report.get("stages", []))} stages, latency '
            f'{report.get("latency_cycles")} cycles, a sample every '
            f'{report.get("interval_cycles")} cycles at a '
            f'{report.get("clock_period_ns", report.get("clock_ns", ""))} ns clock (an estimate '
            f'of kiln\'s delay model); resources are the estimate.</p>\n'
            f'{_table(rows)}</section>')


def explore_html(frontier):
    """The HTML report of a kiln explore directory: the Pareto plot and the
    frontier's table."""
    accuracy = bool(frontier.get("accuracy_goal"))
    rows = [["#", "latency", "interval", "LUT", "LUTRAM", "FF", "DSP", "BRAM18"]
            + (["top-1", "max error", "precision"] if accuracy else []) + ["validated", "config"]]
    for i, p in enumerate(frontier["points"]):
        a = p.get("accuracy") or {}
        rows.append([i, p["latency_cycles"], p["interval_cycles"], f"{p['lut']:.0f}",
                     f"{p.get('lutram', 0):.0f}", f"{p['ff']:.0f}", f"{p['dsp']:.0f}", f"{p['bram18']:.0f}"]
                    + ([f"{100 * a.get('top1', 0):.2f}%", f"{a.get('max_error', 0):.3g}",
                        (p.get("precision") or {}).get("variant", "")] if accuracy else [])
                    + ["yes" if p.get("validated") else "", p.get("config", "")])
    name = html.escape(frontier.get("model", "model"))
    strategy = html.escape(str(frontier.get("strategy", "kiln")))
    rtl = _design_section(frontier.get("design_report"), frontier.get("design", "design"))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kiln explore: {name}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; max-width: 1100px; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 2px 8px; text-align: right; }}
th {{ background: #f0f0f0; }}
figure {{ margin: 0; }} figure svg {{ max-width: 100%; height: auto; }}
</style></head>
<body data-plots="1">
<h1>kiln explore: {name}</h1>
<p>Part {html.escape(str(frontier.get("part", "")))}, strategy {strategy}:
{frontier.get("points_priced", 0):,} designs priced, {frontier.get("points_placed", 0)} placed,
{len(frontier["points"])} on the frontier in {frontier.get("seconds", 0):.1f} s. Cycles come
from kiln's exact schedules; resources are the operator library's estimate (no vendor tool
ran).</p>
<section><h2>Frontier</h2>
<figure id="plot0" class="plot">{_svg(plot_frontier(frontier))}</figure></section>
{_table(rows)}
{rtl}
<script>
let drawn = 0;
for (const f of document.querySelectorAll("figure.plot")) {{
  const svg = f.querySelector("svg");
  const box = svg ? svg.getBBox() : null;
  const ok = box && box.width > 50 && box.height > 50 && svg.querySelectorAll("path").length > 5;
  f.dataset.rendered = ok ? "yes" : "no";
  if (ok) drawn++;
}}
document.body.dataset.rendered = String(drawn);
</script>
</body></html>
"""


def main(argv):
    if len(argv) != 4 or argv[1] not in ("profile", "report", "explore"):
        print("usage: kiln_plot.py profile PROFILE.json FILE | report REPORT.json FILE.html | "
              "explore FRONTIER.json FILE.html", file=sys.stderr)
        return 2
    data = json.loads(open(argv[2]).read())
    if argv[1] == "profile":
        plot_profile(data, argv[3], types=data.get("types"))
    else:
        with open(argv[3], "w") as f:
            f.write(report_html(data) if argv[1] == "report" else explore_html(data))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
