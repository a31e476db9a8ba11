"""The plot family against its data: not "it renders" but "it draws the numbers".

Every SVG is parsed with an XML parser.  The axis transform of each panel is
recovered from its own tick marks and labels (a least-squares line through
(label value, tick position)), then every drawn polyline is mapped back to
data coordinates and compared with the JSON points it came from:

  - plot_curves (PR and ROC, on random datasets with ties, 1 % prevalence,
    tiny and large groups): each drawn vertex is a JSON point (within half a
    pixel), in order; every JSON point lies within a pixel of a drawn vertex
    (the simplification's promise); the PR baseline's y is the group's
    prevalence; the ROC diagonal runs (0,0)-(1,1); the legend names every
    series with its AP (sklearn's average_precision_score) or AUROC
    (roc_auc_score) to 3 decimals.
  - a curve of 10^5 points is drawn with far fewer vertices, same checks.
  - plot_reliability: the line is (mean_p, frac_pos) per bin, the histogram
    bars' heights are proportional to the bins' counts and lie inside their
    bins, the legend gives ece() per series.
  - plot_bars: heights proportional to values (signed), one bar per row.
  - plot_lines: vertices are the points sorted by x per series.
  - escaping, determinism, NULL and empty input, the window refusal.
  - hostile text: names, titles, units and categories with ill-formed UTF-8,
    U+FFFE/U+FFFF, control characters and long multi-byte names give SVGs
    that are well-formed UTF-8 and XML in every plot (parsed from bytes),
    with each text equal to Python's decoding ('replace') of the input, and
    error messages that are well-formed UTF-8.
"""
import json
import math
import random
import re
import sqlite3
import sys
import xml.etree.ElementTree as ET

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

import mltest

NS = "{http://www.w3.org/2000/svg}"
chk = mltest.Checker("test_plots")


def parse(svg):
    root = ET.fromstring(svg)
    chk.equal(root.tag, NS + "svg", "root element is svg")
    chk.equal(root.get("version"), "1.1", "SVG version")
    for el in root.iter():
        chk.true(el.tag != NS + "script", "no script element")
        for k, v in el.attrib.items():
            chk.true("href" not in k, "no external reference: %s=%s" % (k, v))
    return root


def cls(el):
    return (el.get("class") or "").split()


def by_class(root, name):
    return [el for el in root.iter() if name in cls(el)]


def fit(pairs):
    """Least-squares px = a + b*v through (value, pixel) pairs."""
    v = np.array([p[0] for p in pairs])
    px = np.array([p[1] for p in pairs])
    b, a = np.polyfit(v, px, 1)
    resid = np.max(np.abs(a + b * v - px)) if len(v) else 0
    chk.true(resid < 0.01, "ticks are evenly spaced (residual %g px)" % resid)
    return a, b


def axes(root, panel=0):
    """(ax, bx, ay, by) of the panel-th set of axes (reliability has two)."""
    xt = by_class(root, "xtick")
    yt = by_class(root, "ytick")
    # ticks of one panel share their tick-mark y (x ticks) -- group them
    def groups(ticks, attr):
        out = {}
        for g in ticks:
            lines = [l for l in g if l.tag == NS + "line" and "grid" not in cls(l)]
            text = [t for t in g if t.tag == NS + "text"][0]
            key = round(float(lines[0].get(attr)), 2)
            out.setdefault(key, []).append((float(text.text), lines[0]))
        return [out[k] for k in sorted(out)]
    gx = groups(xt, "y1")[panel] if xt else None
    gy = groups(yt, "x1")
    gy = gy[0] if len(gy) == 1 else sorted(gy, key=lambda g: float(g[0][1].get("y1")))[0]
    # y ticks of both reliability panels share x1: split them by their y
    yt_all = []
    for g in yt:
        line = [l for l in g if l.tag == NS + "line" and "grid" not in cls(l)][0]
        text = [t for t in g if t.tag == NS + "text"][0]
        yt_all.append((float(text.text), float(line.get("y1"))))
    frames = by_class(root, "frame")
    fr = frames[panel]
    top, h = float(fr.get("y")), float(fr.get("height"))
    ys = [(v, py) for v, py in yt_all if top - 0.01 <= py <= top + h + 0.01]
    ax, bx = fit([(v, float(l.get("x1"))) for v, l in gx]) if gx else (None, None)
    ay, by = fit(ys)
    return ax, bx, ay, by


def points(poly):
    out = []
    for p in poly.get("points").split():
        x, y = p.split(",")
        out.append((float(x), float(y)))
    return out


def to_px(tr, x, y):
    ax, bx, ay, by = tr
    return ax + bx * x, ay + by * y


def check_polyline(poly, data, tr, what):
    """Drawn vertices are data points in order (half a pixel); every data
    point is within a pixel of a drawn vertex."""
    drawn = points(poly)
    want = [to_px(tr, x, y) for x, y in data]
    j = 0
    ok = True
    for (px, py) in drawn:
        while j < len(want) and math.hypot(want[j][0] - px, want[j][1] - py) > 0.5:
            j += 1
        if j == len(want):
            ok = False
            break
        j += 1
    chk.true(ok, "%s: every drawn vertex is a data point, in order" % what)
    if len(want) and len(drawn):
        d = np.array(drawn)
        worst = 0.0
        for wx, wy in want:
            worst = max(worst, float(np.min(np.hypot(d[:, 0] - wx, d[:, 1] - wy))))
        chk.true(worst <= 1.01, "%s: every data point within 1 px of a vertex (worst %.3f)" % (what, worst))
        chk.true(math.hypot(drawn[0][0] - want[0][0], drawn[0][1] - want[0][1]) <= 0.5 and
                 math.hypot(drawn[-1][0] - want[-1][0], drawn[-1][1] - want[-1][1]) <= 0.5,
                 "%s: first and last points are drawn" % what)
    return len(drawn)


def legend(root):
    out = []
    for e in by_class(root, "legend-entry"):
        out.append([t for t in e if t.tag == NS + "text"][0].text)
    return out


def dataset(rng, n, prev, ties):
    y = (rng.random(n) < prev).astype(int)
    if y.sum() == 0:
        y[0] = 1
    if y.sum() == n:
        y[0] = 0
    s = rng.normal(size=n) + 1.2 * y
    if ties:
        s = np.round(s, 1)
    return y, s


def load(con, groups):
    con.execute("DROP TABLE IF EXISTS t")
    con.execute("CREATE TABLE t(g TEXT, y INT, s REAL, p REAL)")
    rows = []
    for name, (y, s) in groups.items():
        p = 1 / (1 + np.exp(-s))
        rows += [(name, int(a), float(b), float(c)) for a, b, c in zip(y, s, p)]
    con.executemany("INSERT INTO t VALUES (?,?,?,?)", rows)


def test_curves(con, rng):
    for it in range(40):
        k = rng.integers(1, 6)
        groups = {}
        for i in range(k):
            n = int(rng.choice([4, 12, 60, 400, 2000]))
            prev = float(rng.choice([0.01, 0.1, 0.3, 0.5, 0.9]))
            groups["g%d <&>" % i if it % 7 == 0 else "fold %d" % i] = dataset(rng, n, prev, ties=bool(rng.integers(0, 2)))
        load(con, groups)
        for kind in ("pr_curve", "roc_curve"):
            rows = con.execute("SELECT g, %s(y, s) FROM t GROUP BY g ORDER BY g" % kind).fetchall()
            svg = con.execute("SELECT plot_curves(g, c) FROM (SELECT g, %s(y, s) AS c FROM t GROUP BY g ORDER BY g)"
                              % kind).fetchone()[0]
            root = parse(svg)
            tr = axes(root)
            polys = by_class(root, "curve")
            chk.equal(len(polys), len(rows), "%s: one polyline per series" % kind)
            leg = legend(root)
            chk.equal(len(leg), len(rows), "%s: one legend entry per series" % kind)
            for (name, c), poly, text in zip(rows, polys, leg):
                pts = json.loads(c)
                y, s = groups[name]
                if kind == "pr_curve":
                    data = [(q["recall"], q["precision"]) for q in pts]
                    want = average_precision_score(y, s)
                    chk.equal(text, "%s (AP %.3f)" % (name, want), "PR legend")
                else:
                    data = [(q["fpr"], q["tpr"]) for q in pts]
                    want = roc_auc_score(y, s)
                    chk.equal(text, "%s (AUROC %.3f)" % (name, want), "ROC legend")
                check_polyline(poly, data, tr, "%s %s" % (kind, name))
            if kind == "pr_curve":
                bases = by_class(root, "baseline")
                chk.equal(len(bases), len(rows), "one baseline per PR series")
                for (name, c), b in zip(rows, bases):
                    y, _ = groups[name]
                    ax, bx, ay, by = tr
                    y1 = (float(b.get("y1")) - ay) / by
                    chk.true(abs(float(b.get("y1")) - (ay + by * y.mean())) <= 0.5,
                             "baseline of %s at prevalence %g (drawn at %g)" % (name, y.mean(), y1))
                    chk.equal(b.get("y1"), b.get("y2"), "baseline is horizontal")
                    chk.true(b.get("stroke-dasharray") is not None, "baseline is dashed")
                    chk.true(abs((float(b.get("x1")) - ax) / bx) < 1e-2 and abs((float(b.get("x2")) - ax) / bx - 1) < 1e-2,
                             "baseline spans recall 0..1")
            else:
                d = by_class(root, "diagonal")
                chk.equal(len(d), 1, "ROC has one diagonal")
                x1, y1 = to_px(tr, 0, 0)
                x2, y2 = to_px(tr, 1, 1)
                chk.true(abs(float(d[0].get("x1")) - x1) < 0.5 and abs(float(d[0].get("y1")) - y1) < 0.5
                         and abs(float(d[0].get("x2")) - x2) < 0.5 and abs(float(d[0].get("y2")) - y2) < 0.5,
                         "ROC diagonal from (0,0) to (1,1)")


def test_large_curve(con, rng):
    y, s = dataset(rng, 200000, 0.3, ties=False)
    load(con, {"big": (y, s)})
    c = con.execute("SELECT pr_curve(y, s) FROM t").fetchone()[0]
    svg = con.execute("SELECT plot_curves('big', c) FROM (SELECT pr_curve(y, s) AS c FROM t)").fetchone()[0]
    pts = json.loads(c)
    chk.true(len(pts) >= 100000, "the large curve has 10^5 points (%d)" % len(pts))
    root = parse(svg)
    tr = axes(root)
    poly = by_class(root, "curve")[0]
    n = check_polyline(poly, [(q["recall"], q["precision"]) for q in pts], tr, "large PR curve")
    chk.true(n < len(pts) / 10, "the large curve is simplified: %d of %d points drawn" % (n, len(pts)))
    chk.true(len(svg) < 200000, "the large curve's SVG is small: %d bytes" % len(svg))
    chk.equal(json.loads(con.execute("SELECT pr_curve(y, s) FROM t").fetchone()[0]), pts, "the data is untouched")


def test_reliability(con, rng):
    for it in range(25):
        k = int(rng.integers(1, 5))
        bins = int(rng.choice([1, 3, 10, 15]))
        groups = {"m%d" % i: dataset(rng, int(rng.choice([5, 50, 500])), 0.3, ties=bool(it % 2)) for i in range(k)}
        load(con, groups)
        if it % 3 == 0:      # probabilities on bin edges
            con.execute("UPDATE t SET p = round(p * %d) / %d.0" % (bins, bins))
        rows = con.execute("SELECT g, reliability(y, p, ?), ece(y, p, ?) FROM t GROUP BY g ORDER BY g",
                           (bins, bins)).fetchall()
        svg = con.execute("SELECT plot_reliability(g, r) FROM (SELECT g, reliability(y, p, ?) AS r FROM t"
                          " GROUP BY g ORDER BY g)", (bins,)).fetchone()[0]
        root = parse(svg)
        top = axes(root, 0)
        hist = axes(root, 1)
        polys = by_class(root, "curve")
        chk.equal(len(polys), k, "reliability: one line per series")
        leg = legend(root)
        hbars = by_class(root, "hist")
        nb = sum(len(json.loads(r)) for _, r, _ in rows)
        chk.equal(len(hbars), nb, "one histogram bar per series and non-empty bin")
        ratios = []
        hb = iter(hbars)
        for si, ((name, r, e), poly, text) in enumerate(zip(rows, polys, leg)):
            b = json.loads(r)
            chk.equal(text, "%s (ECE %.3f)" % (name, e), "reliability legend gives ece()")
            check_polyline(poly, [(q["mean_p"], q["frac_pos"]) for q in b], top, "reliability %s" % name)
        for (name, r, e) in rows:
            for q in json.loads(r):
                rect = next(hb)
                h = float(rect.get("height"))
                ratios.append((h, q["n"]))
                x0 = float(rect.get("x"))
                x1 = x0 + float(rect.get("width"))
                ax, bx, ay, by = hist
                chk.true(ax + bx * q["lo"] - 0.01 <= x0 and x1 <= ax + bx * q["hi"] + 0.01,
                         "histogram bar inside its bin [%g, %g]" % (q["lo"], q["hi"]))
                # the bar's top, inverted, is the count
                chk.true(abs((float(rect.get("y")) - ay) / by - q["n"]) * abs(by) <= 0.5,
                         "histogram bar top at its count %d" % q["n"])
        k_px = sum(h for h, _ in ratios) / sum(n for _, n in ratios)
        worst = max(abs(h - k_px * n) for h, n in ratios)
        chk.true(worst <= 0.02, "histogram heights proportional to counts (%g px per row, off by %g px)" % (k_px, worst))
        d = by_class(root, "diagonal")
        chk.equal(len(d), 1, "reliability has a diagonal")


def test_reliability_weighted(con, rng):
    """Issue 44 item 4: reliability_w JSON, whose n are weight sums (0.5,
    1, 2 per row): drawn, the legend gives ece_w, each histogram bar's top
    is its bin's weight sum, and the histogram's axis says weight."""
    n_frac = 0
    for it in range(6):
        k = int(rng.integers(1, 4))
        bins = int(rng.choice([3, 10]))
        load(con, {"m%d" % i: dataset(rng, int(rng.choice([50, 300])), 0.3, ties=bool(it % 2)) for i in range(k)})
        con.execute("ALTER TABLE t ADD COLUMN w REAL")
        con.execute("UPDATE t SET w = CASE (rowid * 7 + %d) %% 3 WHEN 0 THEN 0.5 WHEN 1 THEN 1 ELSE 2 END" % it)
        rows = con.execute("SELECT g, reliability_w(y, p, w, ?), ece_w(y, p, w, ?) FROM t GROUP BY g ORDER BY g",
                           (bins, bins)).fetchall()
        svg = con.execute("SELECT plot_reliability(g, r) FROM (SELECT g, reliability_w(y, p, w, ?) AS r FROM t"
                          " GROUP BY g ORDER BY g)", (bins,)).fetchone()[0]
        root = parse(svg)
        hist = axes(root, 1)
        ns = [q["n"] for _, r, _ in rows for q in json.loads(r)]
        frac = any(n != int(n) for n in ns)
        n_frac += frac
        for (name, r, e), text in zip(rows, legend(root)):
            chk.equal(text, "%s (ECE %.3f)" % (name, e), "weighted reliability legend gives ece_w()")
        hb = iter(by_class(root, "hist"))
        ax, bx, ay, by = hist
        for n in ns:
            rect = next(hb)
            chk.true(abs((float(rect.get("y")) - ay) / by - n) * abs(by) <= 0.5,
                     "weighted histogram bar top at its weight sum %g" % n)
        chk.equal([e.text for e in by_class(root, "ylabel")], ["fraction of positives", "weight" if frac else "count"],
                  "the weighted histogram's axis says weight when a bin's n is not an integer")
    chk.true(n_frac >= 3, "weighted reliability: bins whose n is a weight sum in most plots (%d of 6)" % n_frac)
    svg = con.execute("SELECT plot_reliability('a', (SELECT reliability(y, p, 5) FROM t))").fetchone()[0]
    chk.equal([e.text for e in by_class(parse(svg), "ylabel")], ["fraction of positives", "count"],
              "an unweighted histogram's axis still says count")
    for bad in ("-0.5", "1e999"):
        try:
            con.execute("SELECT plot_reliability('a', '[{\"lo\":0,\"hi\":0.5,\"n\":%s,\"mean_p\":0.2,"
                        "\"frac_pos\":0}]')" % bad).fetchall()
            chk.true(False, "plot_reliability: n %s is refused" % bad)
        except sqlite3.Error as e:
            chk.true(str(e).startswith("plot_reliability(): bins must be reliability() JSON, got a bin 0"),
                     "n %s: %s" % (bad, e))


def test_bars(con, rng):
    for it in range(20):
        ncat = int(rng.integers(1, 7))
        nser = int(rng.integers(1, 5))
        rows = []
        for c in range(ncat):
            for s in range(nser):
                if rng.random() < 0.8:
                    v = float(rng.normal() * 10 ** int(rng.integers(-3, 4)))
                    if it % 2:
                        v = abs(v)
                    rows.append(("cat%d" % c, "m%d" % s, v))
        if not rows:
            continue
        con.execute("DROP TABLE IF EXISTS b")
        con.execute("CREATE TABLE b(c TEXT, s TEXT, v REAL)")
        con.executemany("INSERT INTO b VALUES (?,?,?)", rows)
        svg = con.execute("SELECT plot_bars(c, s, v, 'cost', 'ms') FROM (SELECT * FROM b ORDER BY rowid)").fetchone()[0]
        root = parse(svg)
        _, _, ay, by = axes(root)
        bars = by_class(root, "bar")
        chk.equal(len(bars), len(rows), "plot_bars: one bar per row")
        ratios = []
        for (c, s, v), rect in zip(rows, bars):
            h = float(rect.get("height"))
            y0 = float(rect.get("y"))
            zero = ay
            top_val = (y0 - ay) / by
            bot_val = (y0 + h - ay) / by
            # the bar spans 0..v
            chk.true(abs(min(top_val, bot_val) - min(0, v)) * abs(by) <= 0.5 and
                     abs(max(top_val, bot_val) - max(0, v)) * abs(by) <= 0.5,
                     "bar %s/%s spans 0..%g" % (c, s, v))
            ratios.append((h, abs(v)))
        k_px = sum(h for h, _ in ratios) / sum(v for _, v in ratios)
        worst = max(abs(h - k_px * v) for h, v in ratios)
        chk.true(worst <= 0.02, "plot_bars heights proportional to values (%g px per unit, off by %g px)" % (k_px, worst))
        names = sorted(set(s for _, s, _ in rows), key=lambda n: [r[1] for r in rows].index(n))
        chk.equal(legend(root), names, "plot_bars legend lists every series in order")
        cats = [t.text for t in by_class(root, "xcat")]
        chk.equal(cats, sorted(set(c for c, _, _ in rows), key=lambda n: [r[0] for r in rows].index(n)),
                  "plot_bars category labels")


def test_lines(con, rng):
    for it in range(20):
        pts = []
        for s in range(int(rng.integers(1, 4))):
            for i in range(int(rng.integers(1, 40))):
                pts.append(("src%d" % s, float(rng.integers(0, 1000)), float(rng.normal())))
        random.Random(it).shuffle(pts)
        con.execute("DROP TABLE IF EXISTS l")
        con.execute("CREATE TABLE l(s TEXT, x REAL, y REAL)")
        con.executemany("INSERT INTO l VALUES (?,?,?)", pts)
        svg = con.execute("SELECT plot_lines(s, x, y) FROM (SELECT * FROM l ORDER BY rowid)").fetchone()[0]
        root = parse(svg)
        tr = axes(root)
        names = []
        for s, _, _ in pts:
            if s not in names:
                names.append(s)
        polys = by_class(root, "curve")
        chk.equal(len(polys), len(names), "plot_lines: one line per series")
        for name, poly in zip(names, polys):
            mine = sorted([(x, y) for s, x, y in pts if s == name], key=lambda p: p[0])
            check_polyline(poly, mine, tr, "plot_lines %s" % name)
        chk.equal(legend(root), names, "plot_lines legend")
        chk.equal([by_class(root, c) for c in ("xlabel", "ylabel")], [[], []], "plot_lines: no axis label by default")
    svg = con.execute("SELECT plot_lines(s, x, y, 'drift', 'rows seen', 'PR-AUC') FROM l").fetchone()[0]
    root = parse(svg)
    chk.equal([[e.text for e in by_class(root, c)] for c in ("xlabel", "ylabel")], [["rows seen"], ["PR-AUC"]],
              "plot_lines draws its axis labels")
    svg = con.execute("SELECT plot_lines(s, x, y, NULL, NULL, 'only y') FROM l").fetchone()[0]
    root = parse(svg)
    chk.equal([[e.text for e in by_class(root, c)] for c in ("xlabel", "ylabel")], [[], ["only y"]],
              "plot_lines: a NULL xlabel draws none")
    try:
        con.execute("SELECT plot_lines(s, x, y, 't', s) FROM l").fetchall()
        chk.true(False, "plot_lines: xlabel must agree across rows")
    except sqlite3.Error as e:
        chk.true(str(e).startswith("plot_lines(): xlabel must be the same in every row"), str(e))


def text_axis(root):
    """plot_lines with text x: [(label, px)] of the x axis and (ay, by) of y."""
    xs = []
    for g in by_class(root, "xtick"):
        t = [e for e in g if e.tag == NS + "text"][0]
        xs.append((t.text, float(t.get("x"))))
    ys = []
    for g in by_class(root, "ytick"):
        line = [l for l in g if l.tag == NS + "line" and "grid" not in cls(l)][0]
        ys.append((float([e for e in g if e.tag == NS + "text"][0].text), float(line.get("y1"))))
    return xs, fit(ys)


def test_lines_text(con):
    """Issue 46 item 5: text x is a label axis.  Labels in order of first
    appearance (a row with a NULL y places one), one pitch apart, each
    point drawn at its label; the image grows with the labels, the legend
    inside it; numbers and text do not mix."""
    months = ["2024-%02d" % m for m in range(1, 13)] + ["2025-%02d" % m for m in range(1, 13)]
    widths = {}
    for n in (3, 12, 24):
        rows = [(None, months[i], None) for i in range(n)]         # the axis' order
        rows += [("psi " + c, months[i], round(0.01 * i + 0.1 * j, 4)) for j, c in enumerate("ab")
                 for i in range(n) if (i + j) % 5 != 4]            # gaps: not every label in every series
        con.execute("DROP TABLE IF EXISTS lt")
        con.execute("CREATE TABLE lt(s TEXT, x TEXT, y REAL)")
        con.executemany("INSERT INTO lt VALUES (?,?,?)", rows)
        svg = con.execute("SELECT plot_lines(s, x, y, 'PSI', 'month', 'PSI') FROM (SELECT * FROM lt ORDER BY rowid)"
                          ).fetchone()[0]
        root = parse(svg)
        xs, (ay, by) = text_axis(root)
        chk.equal([t for t, _ in xs], months[:n], "text x: every label, in order (%d)" % n)
        gaps = np.diff([px for _, px in xs])
        chk.true(len(gaps) == 0 or (gaps.min() > 40 and gaps.max() - gaps.min() < 0.02),
                 "text x: labels one pitch apart, room for the text (%r)" % (gaps[:3],))
        pos = dict(xs)
        for j, c in enumerate("ab"):
            poly = [p for p, name in zip(by_class(root, "curve"), legend(root)) if name == "psi " + c][0]
            want = [(pos[x], ay + by * y) for s_, x, y in rows if s_ == "psi " + c]
            got = points(poly)
            chk.equal(len(got), len(want), "text x: every point drawn (%s, %d labels)" % (c, n))
            chk.true(all(math.hypot(a[0] - b[0], a[1] - b[1]) <= 0.01 for a, b in zip(got, want)),
                     "text x: each point at its label and value (%s, %d labels)" % (c, n))
        w = float(root.get("width"))
        widths[n] = w
        lx = max(float(l.get("x2")) for l in by_class(root, "swatch"))
        chk.true(lx < w and lx > max(px for _, px in xs), "text x: the legend right of the panel, inside the image")
        chk.equal([e.text for e in by_class(root, "xlabel")], ["month"], "text x: the x axis label")
    chk.true(widths[3] <= widths[12] < widths[24], "text x: the image grows with the labels: %r" % widths)
    # many labels: the panel stops growing, every k-th label drawn
    con.execute("DROP TABLE IF EXISTS lt")
    con.execute("CREATE TABLE lt(s TEXT, x TEXT, y REAL)")
    con.executemany("INSERT INTO lt VALUES ('a', ?, ?)", [("2024-01-%04d" % i, i % 7) for i in range(1500)])
    root = parse(con.execute("SELECT plot_lines(s, x, y) FROM (SELECT * FROM lt ORDER BY rowid)").fetchone()[0])
    xs, _ = text_axis(root)
    chk.true(float(root.get("width")) < 4800 and 20 < len(xs) < 1500 and xs[0][0] == "2024-01-0000",
             "1500 labels: a bounded image, every k-th label (%d drawn)" % len(xs))
    chk.equal(len(points(by_class(root, "curve")[0])) > 100, True, "1500 labels: the line is drawn")
    for sql, msg in (
        ("SELECT plot_lines('s', x, 1) FROM (SELECT 1 AS x UNION ALL SELECT 'b')",
         "plot_lines(): x must be all numbers or all text in one plot, got text 'b' after numbers"),
        ("SELECT plot_lines('s', x, 1) FROM (SELECT 'b' AS x UNION ALL SELECT 2.5)",
         "plot_lines(): x must be all numbers or all text in one plot, got 2.5 after text"),
        ("SELECT plot_lines('s', x, 1) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<2001)"
         " SELECT 'p' || x AS x FROM c)", "plot_lines(): at most 2000 x labels (text x) in one plot, got more"),
    ):
        try:
            con.execute(sql).fetchall()
            chk.true(False, "refused: " + msg)
        except sqlite3.Error as e:
            chk.equal(str(e), msg, "text x error")


def test_rules(con):
    load(con, {"a": (np.array([0, 1, 0, 1]), np.array([0.1, 0.4, 0.35, 0.8]))})
    q = "SELECT plot_curves(g, c, ?) FROM (SELECT g, pr_curve(y, s) AS c FROM t GROUP BY g)"
    one = con.execute(q, ("<t & 'x'>",)).fetchone()[0]
    two = con.execute(q, ("<t & 'x'>",)).fetchone()[0]
    chk.equal(one, two, "deterministic")
    root = parse(one)
    chk.equal(root.find(NS + "title").text, "<t & 'x'>", "title escaped and read back")
    chk.equal(con.execute("SELECT plot_curves('a', NULL)").fetchone()[0], None, "a NULL curve is skipped: NULL")
    chk.equal(con.execute("SELECT plot_bars(c, s, v) FROM (SELECT 1 AS c, 2 AS s, 3 AS v) WHERE 0").fetchone()[0],
              None, "no rows: NULL")
    svg = con.execute("SELECT plot_bars(NULL, 'é\u00e8 \"q\"', 2)").fetchone()[0]
    root = parse(svg)
    chk.equal([t.text for t in by_class(root, "xcat")], ["NULL"], "a NULL category is drawn as NULL")
    chk.equal(legend(root), ['é\u00e8 "q"'], "UTF-8 and quotes in names")
    long = "x" * 40
    root = parse(con.execute("SELECT plot_lines(?, 1, 2)", (long,)).fetchone()[0])
    chk.equal(legend(root), ["x" * 28 + "..."], "long legend names are cut")
    # a long name keeps its value after the cut, and the image widens to hold
    # the entry (DejaVu Sans' widths at 11 px from x = 500) instead of clipping it
    svg = con.execute("SELECT plot_curves(?, c) FROM (SELECT pr_curve(y, s) AS c FROM t)", ("gradient_boosted_trees_v2_calibrated",)).fetchone()[0]
    root = parse(svg)
    chk.true(re.fullmatch(r"gradient_boosted_trees_v2_ca\.\.\. \(AP \d\.\d{3}\)", legend(root)[0]) is not None,
             "a long name is cut, its AP kept: %r" % legend(root)[0])
    chk.true(float(root.get("width")) >= 500 + 242 and root.get("viewBox") == "0 0 %d 480" % float(root.get("width")),
             "the image widens to hold the entry: width %s" % root.get("width"))
    short = parse(con.execute("SELECT plot_curves('a', c) FROM (SELECT pr_curve(y, s) AS c FROM t)").fetchone()[0])
    chk.equal(short.get("width"), "640.00", "a short entry keeps the 640 px image")
    errors = [
        ("SELECT plot_curves('a', '{}')", "plot_curves(): curve must be pr_curve() or roc_curve() JSON, got '{}': expected an array at byte 0"),
        ("SELECT plot_curves('a', x'00')", "plot_curves(): curve must be pr_curve() or roc_curve() JSON, got a blob"),
        ("SELECT plot_curves('a', '[{\"recall\":0.5}]')",
         "plot_curves(): curve must be pr_curve() or roc_curve() JSON, got '[{\"recall\":0.5}]': its points lack recall/precision or fpr/tpr"),
        ("SELECT plot_curves('a', '[{\"recall\":0.5,\"precision\":\"x\"}]')",
         "plot_curves(): curve must be pr_curve() or roc_curve() JSON, got '[{\"recall\":0.5,\"precision\":\"x\"}]': field \"precision\" is not a number at byte 27"),
        ("SELECT plot_curves('a', 1, 2)", "plot_curves(): title must be text, got 2"),
        ("SELECT plot_curves('a', '[{\"recall\":0.5,\"precision\":1,\"recall\":0.7}]')",
         "plot_curves(): curve must be pr_curve() or roc_curve() JSON, got '[{\"recall\":0.5,\"precision\":1,\"recall\":0.': "
         "field \"recall\" appears twice in one object at byte 29"),
        ("SELECT plot_curves('a', '[{\"recall\":1%se-300,\"precision\":0.5}]')" % ("0" * 300),
         None),
        ("SELECT plot_reliability('a', '[{\"lo\":0,\"hi\":2,\"n\":1,\"mean_p\":0.5,\"frac_pos\":1}]')",
         "plot_reliability(): bins must be reliability() JSON, got a bin 0 with lo 0, hi 2, n 1, mean_p 0.5, frac_pos 1"),
        ("SELECT plot_bars('c', 's', x'01')", "plot_bars(): value must be a number, got a blob"),
        ("SELECT plot_lines('s', 1, 'y')", "plot_lines(): y must be a number, got text 'y'"),
        ("SELECT plot_lines(v, 1, 2) FROM (WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v+1 FROM c WHERE v<25) SELECT v FROM c)",
         "plot_lines(): at most 24 series in one plot, got more"),
        ("SELECT plot_bars('c', 's', 1, 'a', v) FROM (SELECT 'ms' AS v UNION ALL SELECT 's')",
         "plot_bars(): unit must be the same in every row, got 's' after 'ms'"),
    ]
    for sql, msg in errors:
        if msg is None:     # not an error: a long number read exactly (1e0), drawn
            svg = con.execute(sql).fetchone()[0]
            chk.equal(legend(parse(svg)), ["a (AP 0.500)"], "a 300-digit number is read exactly")
            continue
        try:
            con.execute(sql).fetchall()
            chk.true(False, "%s: no error, want %r" % (sql, msg))
        except sqlite3.Error as e:
            chk.equal(str(e), msg, sql)
    for f, args in (("plot_curves", "'a', c"), ("plot_reliability", "'a', c"), ("plot_bars", "'a', 'b', 1"),
                    ("plot_lines", "'a', 1, 2")):
        try:
            con.execute("SELECT %s(%s) OVER () FROM (SELECT '[]' AS c)" % (f, args)).fetchall()
            chk.true(False, "%s OVER () must be refused" % f)
        except sqlite3.Error as e:
            chk.equal(str(e), "%s() may not be used as a window function" % f, "%s is not a window function" % f)


import sqlite3  # noqa: E402  (after mltest so the suite's sqlite3 is the one used)


def xml_text_of(raw):
    """What the writers promise for bytes raw: Python's decoding with U+FFFD
    per maximal ill-formed subpart, U+FFFE/U+FFFF as U+FFFD, controls other
    than tab, newline, carriage return dropped -- as an XML parser reads it
    back (line ends normalised to a newline)."""
    t = raw.decode("utf-8", "replace").replace("\ufffe", "\ufffd").replace("\uffff", "\ufffd")
    t = "".join(c for c in t if c >= " " or c in "\t\n\r")
    return t.replace("\r\n", "\n").replace("\r", "\n")


def test_extreme_values(con):
    """Finite inputs never give a NaN or infinite coordinate: subnormal,
    huge and mixed-sign values in plot_bars and plot_lines."""
    D = 1.7976931348623157e308
    bar_sets = [[5e-324], [-5e-324], [D], [-D], [-D, D], [1e-320, 2e-320], [0.0], [0.0, 0.0], [1e300, -1e-300],
                [D, D / 2, 1.0], [1e16, 1e16 + 2]]
    line_sets = [[(0, 5e-324)], [(5e-324, 1)], [(D, D)], [(-D, -D), (D, D)], [(1e308, 1), (1e308, 2)],
                 [(0, 1e-320), (1, 2e-320)], [(1e16, 1), (1e16 + 2, 2)], [(-D, 0), (0, 0), (D, 0)]]
    cases = []
    for vals in bar_sets:
        sql = " UNION ALL ".join("SELECT 'c%d' AS c, 's' AS s, %r AS v" % (i, v) for i, v in enumerate(vals))
        cases.append(("plot_bars %r" % vals, "SELECT plot_bars(c, s, v) FROM (%s)" % sql, vals))
    for pts in line_sets:
        sql = " UNION ALL ".join("SELECT 'a' AS s, %r AS x, %r AS y" % p for p in pts)
        cases.append(("plot_lines %r" % pts, "SELECT plot_lines(s, x, y) FROM (%s)" % sql, None))
    for what, sql, vals in cases:
        svg = con.execute(sql).fetchone()[0]
        root = parse(svg)
        bad = []
        for el in root.iter():
            for k, v in list(el.attrib.items()) + [("text", el.text or "")]:
                if re.search(r"\b(nan|inf|infinity)\b", v, flags=re.I):
                    bad.append("%s %s=%s" % (el.tag.replace(NS, ""), k, v))
        chk.equal(bad, [], "%s: no NaN or infinite coordinate or label" % what)
        if vals is not None:
            bars = by_class(root, "bar")
            chk.equal(len(bars), len(vals), "%s: one bar per value" % what)
            for b in bars:
                h = float(b.get("height"))
                chk.true(0 <= h <= 480 and 0 <= float(b.get("y")) <= 480, "%s: bar inside the image (%s)" % (what, h))


def test_hostile_text(con):
    hostile = [b"a\xffb", b"\xc3", b"x\xe2\x82", b"\xed\xa0\x80sur", b"\xf4\x90\x80\x80big", b"\xc0\xafover",
               b"\xef\xbf\xbe\xef\xbf\xbfnon", b"ctl\x01\x1f\x7f", b"a" + "\u20ac".encode() * 30,
               "\u00e9".encode() * 40, b"<&>'\"", b"\xf0\x9f\x98\x80 ok"]
    rng = random.Random(25)
    for _ in range(30):
        hostile.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 24))).replace(b"\x00", b""))
    raw = sqlite3.connect(":memory:")
    raw.enable_load_extension(True)
    raw.load_extension(mltest.LIB)
    raw.text_factory = bytes
    raw.execute("CREATE TABLE h(k INT, name BLOB)")
    raw.executemany("INSERT INTO h VALUES (?, ?)", list(enumerate(hostile)))
    raw.execute("CREATE TABLE d(y INT, s REAL)")
    raw.executemany("INSERT INTO d VALUES (?, ?)", [(i % 2, (i * 37 % 11) / 11.0) for i in range(40)])
    name = "CAST(name AS TEXT)"
    plots = [
        ("plot_curves", "SELECT plot_curves(%s, (SELECT pr_curve(y, s) FROM d), %s) FROM h WHERE k = ?" % (name, name)),
        ("plot_curves roc", "SELECT plot_curves(%s, (SELECT roc_curve(y, s) FROM d), %s) FROM h WHERE k = ?" % (name, name)),
        ("plot_reliability", "SELECT plot_reliability(%s, (SELECT reliability(y, s, 5) FROM d), %s) FROM h WHERE k = ?"
         % (name, name)),
        ("plot_bars", "SELECT plot_bars(%s, %s, 2.5, %s, %s) FROM h WHERE k = ?" % (name, name, name, name)),
        ("plot_lines", "SELECT plot_lines(%s, 1, 2, %s) FROM h WHERE k = ?" % (name, name)),
    ]
    for k, h in enumerate(hostile):
        want = xml_text_of(h)
        for what, sql in plots:
            svg = raw.execute(sql, (k,)).fetchone()[0]
            try:
                svg.decode("utf-8")
                root = ET.fromstring(svg)
            except (UnicodeDecodeError, ET.ParseError) as e:
                chk.true(False, "%s over %r: not well-formed UTF-8 and XML: %s" % (what, h, e))
                continue
            chk.equal(root.find(NS + "title").text or "", want, "%s over %r: the title reads back" % (what, h))
            for el in root.iter():
                for t in [el.text or ""] + list(el.attrib.values()):
                    chk.true("\ufffe" not in t and "\uffff" not in t, "%s over %r: no U+FFFE/U+FFFF" % (what, h))
            if what == "plot_reliability":
                tips = [t.text for t in root.iter(NS + "title")][1:]
                cut = h[:60]
                while cut and len(cut) < len(h) and (h[len(cut)] & 0xC0) == 0x80 and cut[-1] >= 0x80:
                    cut = cut[:-1]
                chk.true(all(t.startswith(xml_text_of(h[:len(cut)]) + ": n ") for t in tips),
                         "reliability tooltips start with the name cut between characters (%r)" % h)
        # messages quote the text: well-formed UTF-8 too
        for sql in ("SELECT plot_curves('a', %s) FROM h WHERE k = ?" % name,
                    "SELECT plot_curves(%s, c) FROM h, (SELECT pr_curve(y, s) AS c FROM d UNION ALL "
                    "SELECT pr_curve(y, s) FROM d) WHERE k = ?" % name):
            try:
                raw.execute(sql, (k,)).fetchall()
                chk.true(False, "%s: an error was expected" % sql)
            except sqlite3.Error as e:
                chk.true(str(e).startswith("plot_curves(): "), "message over %r: %s" % (h, e))
            except UnicodeDecodeError as e:
                chk.true(False, "the message over %r is not well-formed UTF-8: %s" % (h, e))


def main():
    con = mltest.connect()
    rng = np.random.default_rng(16)
    test_rules(con)
    test_hostile_text(con)
    test_extreme_values(con)
    test_curves(con, rng)
    test_large_curve(con, rng)
    test_reliability(con, rng)
    test_reliability_weighted(con, rng)
    test_bars(con, rng)
    test_lines(con, rng)
    test_lines_text(con)
    chk.finish()


if __name__ == "__main__":
    main()
