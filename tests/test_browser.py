# SPDX-License-Identifier: MIT
"""The demo report in a real browser (Debian's chromium, headless).

  0. The report of two scores (one named "s2<i>&amp;") and a probability,
     of a table named res: a refusal to overwrite a file it did not write.
  1. The report as written: --dump-dom shows the summary first, open, with
     auroc_ci's and pr_auc_ci's intervals and the Brier score as SQL gives
     them and the odd name as text, then the sections AUROC, PR curves,
     Calibration, Compare models, Operating points, SVD cost in that
     order, none open.  A measuring
     copy (the report plus a script that records each element's rendered
     box into the DOM; the report itself has no script) shows that closed,
     the sections' plots take no space.
  2. The same copy with every section opened: each SVG has a non-zero
     rendered width and height, and its plot frame too.
  3. A screenshot of the opened report, decoded here (PNG: zlib + the five
     row filters): it is not blank -- many non-white pixels, pixel variance
     well above zero, and the Okabe-Ito blue of the first series is there.
  4. A screenshot of the top of the report as written shows text (the
     summary); MLEVAL_KEEP_SCREENSHOT=FILE keeps both screenshots.
  5. Legends fit: in a report of two scores with long names, every legend
     entry of every plot, as rendered, ends inside its SVG (an inline SVG
     clips what overflows it), and each PR curve's entry keeps its AP value
     (issue 37: the PR legend was cut off with long score names).
  6. What README says the always-open summary holds is in the summary as
     rendered (it once listed the model comparison and operating points,
     which are collapsed sections).
  7. The Drift section (--drift-ref) of the demo's 30-day months: after
     Operating points; opened, its PSI plot renders, its legend (each
     score, the 0.1 and 0.25 lines) inside the SVG.

Exits 77 (SKIP) with the reason where chromium is not installed or cannot
start; bootstrap installs it, so CI runs this test.
"""
import os
import json
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import mltest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("srcdir", os.path.join(HERE, ".."))
REPORT = os.environ.get("MLEVAL_REPORT") or os.path.join(HERE, "..", "tools", "mleval-report")
ck = mltest.Checker("browser")

MEASURE = """
<script>
(function(){
  var out = [];
  document.querySelectorAll('details').forEach(function(d){
    out.push(['details', d.id, d.getBoundingClientRect().height,
              d.querySelector('summary').getBoundingClientRect().height].join(' '));
    d.querySelectorAll('svg').forEach(function(s){
      var r = s.getBoundingClientRect();
      var f = s.querySelector('.frame');
      var fr = f ? f.getBoundingClientRect() : {width: -1, height: -1};
      var vis = s.checkVisibility ? (s.checkVisibility() ? 1 : 0) : -1;
      out.push(['svg', d.id, r.width, r.height, fr.width, fr.height, vis].join(' '));
    });
  });
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = out.join('\\n');
  document.body.appendChild(pre);
})();
</script>
"""


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def chrome(exe, profile, args, url, timeout=120):
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--user-data-dir=" + profile, "--hide-scrollbars"] + args + [url]
    # make check-sanitize preloads the sanitizer runtimes for the interpreters;
    # the browser is not ours to instrument.
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of a PNG, 8-bit RGB or RGBA."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG: depth %d colour type %d interlace %d" % (depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


LEGEND = """
<script>
(function(){
  var out = [];
  document.querySelectorAll('details').forEach(function(d){ d.open = true; });
  document.querySelectorAll('svg').forEach(function(s){
    var sr = s.getBoundingClientRect();
    var sec = s.closest('details');
    s.querySelectorAll('.legend text').forEach(function(t){
      var r = t.getBoundingClientRect();
      out.push([sec ? sec.id : '-', (r.right - sr.right).toFixed(1), t.textContent].join('\\t'));
    });
  });
  var pre = document.createElement('pre');
  pre.id = 'legends';
  pre.textContent = out.join('\\n');
  document.body.appendChild(pre);
})();
</script>
"""


def check_legends(exe, profile, tmp, env):
    """5: a report of two long-named scores: every legend entry inside its
    SVG, every PR entry with its AP."""
    import sqlite3
    db = os.path.join(tmp, "long.db")
    con = sqlite3.connect(db)
    con.executescript(open(os.path.join(SRC, "sql", "demo_data.sql")).read())
    a, b = "gradient_boosted_trees_v2_calibrated", "logistic_regression_baseline_2024"
    con.execute('CREATE TABLE long AS SELECT fold, y, s AS "%s", p AS "%s" FROM preds' % (a, b))
    con.commit()
    con.close()
    html = os.path.join(tmp, "long.html")
    r = subprocess.run([REPORT, db, "long", "--label", "y", "--score", a, "--score", b, "--by", "fold", "-o", html],
                       capture_output=True, text=True, env=env)
    ck.equal((r.returncode, r.stderr), (0, ""), "the report of two long-named scores")
    if r.returncode:
        return
    page = os.path.join(tmp, "long_measure.html")
    open(page, "w").write(open(html).read().replace("</body>", LEGEND + "</body>"))
    r = chrome(exe, profile, ["--dump-dom", "--window-size=1000,1400"], "file://" + page)
    m = re.search(r'<pre id="legends">(.*?)</pre>', r.stdout, flags=re.S)
    ck.true(m is not None, "the legend-measuring copy ran in the browser")
    rows = [l.split("\t") for l in (m.group(1).strip().splitlines() if m else [])]
    ck.true(len(rows) > 20, "legend entries measured: %d" % len(rows))
    out = [(sec, float(over), text) for sec, over, text in rows if float(over) > 0.5]
    ck.equal(out[:4], [], "every legend entry ends inside its SVG")
    pr = [text for sec, over, text in rows if sec == "compare" and not text.startswith("no skill")]
    pr = [t for t in pr if "(AP " in t or "(AUROC " in t]
    ck.equal(len(pr), 4, "the comparison's ROC and PR legends name both scores: %r" % pr)
    ck.true(all(re.search(r"\((AP|AUROC) \d\.\d{3}\)$", t) for t in pr),
            "each curve's entry keeps its value: %r" % pr)


def check_drift(exe, profile, tmp, env):
    """7: the Drift section (--drift-ref) of the demo's monthly view: after
    Operating points, closed; opened, its PSI plot renders with a legend
    entry for each score and for the 0.1 and 0.25 lines, all inside it."""
    import sqlite3
    db = os.path.join(tmp, "drift.db")
    con = sqlite3.connect(db)
    con.executescript(open(os.path.join(SRC, "sql", "demo_data.sql")).read())
    con.execute("CREATE VIEW preds_monthly AS SELECT *, ts / 30 AS month FROM preds")
    con.commit()
    con.close()
    html = os.path.join(tmp, "drift.html")
    r = subprocess.run([REPORT, db, "preds_monthly", "--label", "y", "--score", "s", "--score", "pm", "--prob", "pm",
                        "--by", "month", "--drift-ref", "0..1", "-o", html], capture_output=True, text=True, env=env)
    ck.equal((r.returncode, r.stderr), (0, ""), "the drift report of the demo's months")
    if r.returncode:
        return
    text = open(html, encoding="utf-8").read()
    page = os.path.join(tmp, "drift_measure.html")
    open(page, "w").write(text.replace("</body>", LEGEND + "</body>"))
    r = chrome(exe, profile, ["--dump-dom", "--window-size=1000,1400"], "file://" + page)
    ids = re.findall(r'<details id="([a-z]+)"', r.stdout)
    ck.equal(ids[-2:], ["operating", "drift"], "the Drift section follows Operating points: %r" % ids)
    m = re.search(r'<pre id="legends">(.*?)</pre>', r.stdout, flags=re.S)
    rows = [l.split("\t") for l in (m.group(1).strip().splitlines() if m else [])]
    drift = [(float(over), text) for sec, over, text in rows if sec == "drift"]
    ck.equal(sorted(t for _, t in drift), ["PSI 0.1: moderate shift", "PSI 0.25: major shift", "pm", "s"],
             "the PSI plot's legend as rendered: %r" % drift)
    ck.equal([t for over, t in drift if over > 0.5], [], "every PSI legend entry ends inside its SVG")


def check_readme(dom):
    """6: every item README lists for the summary is in the rendered summary."""
    readme = open(os.path.join(SRC, "README.md"), encoding="utf-8").read()
    m = re.search(r"always-open summary \(([^)]*(?:\([^)]*\)[^)]*)*)\)", readme)
    ck.true(m is not None, "README describes the always-open summary")
    if m is None:
        return
    s = re.search(r'<section id="summary">(.*?)</section>', dom, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", s.group(1) if s else "").lower()
    text = text.replace("&amp;", "&")
    stop = {"with", "and", "per", "the", "over", "their", "its", "each", "next", "against", "from", "all", "rows"}
    for item in re.split(r",|;", m.group(1)):
        words = [w for w in re.findall(r"[a-z][a-z/-]+", item.lower()) if len(w) > 2 and w not in stop]
        missing = [w for w in words if (w[:-1] if w.endswith("s") and len(w) > 4 else w) not in text]
        ck.equal(missing, [], "README's summary item %r is in the rendered summary" % item.strip())


def main():
    exe = browser()
    if exe is None:
        print("SKIP: no chromium (apt-get install chromium; ./bootstrap installs it)")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="mleval-browser")
    profile = os.path.join(tmp, "profile")
    os.mkdir(profile)
    try:
        r = chrome(exe, profile, ["--dump-dom"], "data:text/html,<p id=x>ok</p>", timeout=90)
    except (OSError, subprocess.TimeoutExpired) as e:
        print("SKIP: chromium cannot start: %s" % e)
        sys.exit(77)
    if r.returncode != 0 or 'id="x"' not in r.stdout:
        print("SKIP: chromium cannot render a page here (exit %d): %s" % (r.returncode, r.stderr[-500:]))
        sys.exit(77)

    # The demo report (the data of make demo) with a second score whose name
    # needs escaping, in a table named res (the name of the report's own
    # table before they moved to temp._mleval_report_*), --prob and a small
    # SVD section.
    db = os.path.join(tmp, "demo.db")
    import sqlite3
    con = sqlite3.connect(db)
    con.executescript(open(os.path.join(SRC, "sql", "demo_data.sql")).read())
    con.execute("CREATE TABLE res AS SELECT fold, y, s, s + ((id * 7919) % 100) / 25.0 - 2 AS \"s2<i>&amp;\", p FROM preds")
    con.commit()
    con.close()
    S2 = "s2<i>&amp;"
    html = os.path.join(tmp, "demo-report.html")
    env = dict(os.environ, MLEVAL_LIB=mltest.LIB)
    notes = os.path.join(tmp, "notes.txt")
    open(notes, "w").write("not a report\n")
    r = subprocess.run([REPORT, db, "res", "--label", "y", "--score", "s", "--score", S2, "-o", notes],
                       capture_output=True, text=True, env=env)
    ck.true(r.returncode == 1 and "refusing to overwrite" in r.stderr and open(notes).read() == "not a report\n",
            "the report refuses to overwrite a file it did not write: %s" % r.stderr.strip())
    r = subprocess.run([REPORT, db, "res", "--label", "y", "--score", "s", "--score", S2, "--prob", "p", "--by", "fold",
                        "--svd", "--svd-dims", "32,64", "--svd-iters", "3", "-o", html],
                       capture_output=True, text=True, env=env)
    ck.equal((r.returncode, r.stderr), (0, ""), "mleval-report writes the demo report with two scores")
    text = open(html).read()
    ref = mltest.connect()
    ref.execute("ATTACH ? AS d", (db,))

    # 1. as written: four sections in order, closed
    r = chrome(exe, profile, ["--dump-dom"], "file://" + html)
    dom = r.stdout
    ids = re.findall(r"<details([^>]*)>\s*<summary>([^<]*)</summary>", dom)
    ck.equal([s for _, s in ids], ["AUROC", "PR curves", "Calibration", "Compare models", "Operating points", "SVD cost"],
             "the browser's DOM has the sections in order")
    # the summary: open, first, and its numbers are SQL's
    m = re.search(r'<section id="summary">(.*?)</section>', dom, flags=re.S)
    ck.true(m is not None and dom.find('<section id="summary">') < dom.find("<details"),
            "the summary is in the DOM before the sections")
    summ = m.group(1) if m else ""
    for col in ("s", S2):
        q = "FROM d.res WHERE y IS NOT NULL AND \"%s\" IS NOT NULL" % col
        for fn in ("auroc_ci(y, \"%s\")" % col, "pr_auc_ci(y, \"%s\", 0.95, 1000, 0)" % col):
            ci = json.loads(ref.execute("SELECT %s %s" % (fn, q)).fetchone()[0])
            want = "%.3f <span class=\"ci\">[%.3f, %.3f]</span>" % (ci["estimate"], ci["lo"], ci["hi"])
            ck.true(want in summ, "summary shows %s over all rows: %s" % (fn, want))
        ci = json.loads(ref.execute("SELECT auroc_ci(y, \"%s\") %s AND fold = 3" % (col, q)).fetchone()[0])
        ck.true("%.3f <span class=\"ci\">[%.3f, %.3f]</span>" % (ci["estimate"], ci["lo"], ci["hi"]) in summ,
                "summary shows fold 3's AUROC interval of %s" % col)
    b = ref.execute("SELECT brier(y, p) FROM d.res").fetchone()[0]
    ck.true("<td>%.3f</td>" % b in summ, "summary shows the Brier score")
    # the escaped name: text in the page, never markup
    ck.true("<td>s2&lt;i&gt;&amp;amp;</td>" in summ and "<i>" not in dom.split("<body>")[1].replace("<i>&amp;", ""),
            "the score name is shown as text, not as markup")
    ck.true(all(" open" not in a for a, _ in ids), "every section is closed by default in the browser")
    closed = os.path.join(tmp, "closed.html")
    open(closed, "w").write(text.replace("</body>", MEASURE + "</body>"))
    r = chrome(exe, profile, ["--dump-dom", "--window-size=1000,1400"], "file://" + closed)
    m = re.search(r'<pre id="measured">(.*?)</pre>', r.stdout, flags=re.S)
    ck.true(m is not None, "the measuring copy ran in the browser")
    lines = [l.split() for l in (m.group(1).strip().splitlines() if m else [])]
    sizes = [l[1:] for l in lines if l[0] == "svg"]
    dets = [l[1:] for l in lines if l[0] == "details"]
    ck.equal(len(sizes), 2 + 2 + 2 + 2 + 1,
             "the report has its plots (ROC and PR per score, reliability, decision curve, both scores' ROC and PR, SVD cost)")
    ck.equal(len(dets), 6, "six sections measured")
    for sec, dh, sh in dets:
        ck.true(float(dh) < float(sh) + 20, "closed section %s is only its summary: %s px, summary %s px" % (sec, dh, sh))
    ck.true(all(v in ("0", "-1") for *_, v in sizes), "closed sections' plots are not visible: %r" % sizes)

    # 2. opened: every SVG has a rendered size
    opened = os.path.join(tmp, "open.html")
    open_text = text.replace("<details ", "<details open ")
    open(opened, "w").write(open_text.replace("</body>", MEASURE + "</body>"))
    r = chrome(exe, profile, ["--dump-dom", "--window-size=1000,1400"], "file://" + opened)
    m = re.search(r'<pre id="measured">(.*?)</pre>', r.stdout, flags=re.S)
    lines = [l.split() for l in (m.group(1).strip().splitlines() if m else [])]
    sizes = [l[1:] for l in lines if l[0] == "svg"]
    ck.equal(sorted({s[0] for s in sizes}), sorted(["auroc", "pr", "calibration", "compare", "svd"]),
             "every section but the operating points' table has a plot")
    for sec, dh, sh in [l[1:] for l in lines if l[0] == "details"]:
        ck.true(float(dh) > float(sh) + 300, "opened section %s shows its content: %s px" % (sec, dh))
    for sec, w, h, fw, fh, vis in sizes:
        ck.true(vis in ("1", "-1"), "%s: SVG visible when open" % sec)
        ck.true(float(w) >= 300 and float(h) >= 200, "%s: SVG rendered at %sx%s px" % (sec, w, h))
        ck.true(float(fw) > 100 and float(fh) > 50, "%s: plot frame rendered at %sx%s px" % (sec, fw, fh))

    # 3. a screenshot of the opened report is not blank
    shot_html = os.path.join(tmp, "shot.html")
    open(shot_html, "w").write(open_text)
    png = os.path.join(tmp, "shot.png")
    r = chrome(exe, profile, ["--screenshot=" + png, "--window-size=900,1300"], "file://" + shot_html)
    ck.true(os.path.exists(png), "chromium wrote a screenshot")
    if os.path.exists(png):
        w, h, bpp, rows = png_pixels(png)
        ck.equal((w, h), (900, 1300), "screenshot size")
        n = nonwhite = blue = 0
        s1 = s2 = 0.0
        for line in rows[::2]:
            for i in range(0, w * bpp, bpp * 2):
                r_, g_, b_ = line[i], line[i + 1], line[i + 2]
                v = (r_ + g_ + b_) / 3.0
                n += 1
                s1 += v
                s2 += v * v
                if v < 235:
                    nonwhite += 1
                if abs(r_ - 0x00) < 40 and abs(g_ - 0x72) < 40 and abs(b_ - 0xB2) < 40:
                    blue += 1
        var = s2 / n - (s1 / n) ** 2
        ck.true(var > 100, "screenshot pixel variance %.1f" % var)
        ck.true(nonwhite > 0.02 * n, "screenshot has drawing (%d of %d sampled pixels not white)" % (nonwhite, n))
        ck.true(blue > 20, "the first series' Okabe-Ito blue is on screen (%d pixels)" % blue)
    check_readme(dom)
    check_legends(exe, profile, tmp, env)
    check_drift(exe, profile, tmp, env)

    # 4. the top of the report as written (the summary is the first screen)
    top = os.path.join(tmp, "top.png")
    r = chrome(exe, profile, ["--screenshot=" + top, "--window-size=1000,900"], "file://" + html)
    ck.true(os.path.exists(top), "chromium wrote a screenshot of the top")
    if os.path.exists(top):
        w, h, bpp, rows = png_pixels(top)
        dark = sum(1 for line in rows[::3] for i in range(0, w * bpp, bpp * 3) if line[i] + line[i + 1] + line[i + 2] < 300)
        ck.true(dark > 2000, "the first screen shows text (the summary's numbers): %d dark pixels" % dark)
    if os.environ.get("MLEVAL_KEEP_SCREENSHOT"):
        shutil.copy(png, os.environ["MLEVAL_KEEP_SCREENSHOT"])
        if os.path.exists(top):
            shutil.copy(top, os.environ["MLEVAL_KEEP_SCREENSHOT"] + ".top.png")
    shutil.rmtree(tmp, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
