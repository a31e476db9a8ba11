# SPDX-License-Identifier: MIT
"""The demo report in a real browser (Debian's chromium, headless).

  1. The report as written: --dump-dom shows the four sections AUROC, PR
     curves, Calibration, SVD cost in that order, none open.  A measuring
     copy (the report plus a script that records each element's rendered
     box into the DOM; the report itself has no script) shows that closed,
     the sections' plots take no space.
  2. The same copy with every section opened: each SVG has a non-zero
     rendered width and height, and its plot frame too.
  3. A screenshot of the opened report, decoded here (PNG: zlib + the five
     row filters): it is not blank -- many non-white pixels, pixel variance
     well above zero, and the Okabe-Ito blue of the first series is there.

Exits 77 (SKIP) with the reason where chromium is not installed or cannot
start; bootstrap installs it, so CI runs this test.
"""
import os
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

    # The demo report (the data of make demo), with a small SVD section.
    db = os.path.join(tmp, "demo.db")
    import sqlite3
    con = sqlite3.connect(db)
    con.executescript(open(os.path.join(SRC, "sql", "demo_data.sql")).read())
    con.close()
    html = os.path.join(tmp, "demo-report.html")
    env = dict(os.environ, MLEVAL_LIB=mltest.LIB)
    r = subprocess.run([REPORT, db, "preds", "--label", "y", "--score", "s", "--prob", "p", "--by", "fold",
                        "--svd", "--svd-dims", "32,64", "--svd-iters", "3", "-o", html],
                       capture_output=True, text=True, env=env)
    ck.equal((r.returncode, r.stderr), (0, ""), "mleval-report writes the demo report")
    text = open(html).read()

    # 1. as written: four sections in order, closed
    r = chrome(exe, profile, ["--dump-dom"], "file://" + html)
    dom = r.stdout
    ids = re.findall(r"<details([^>]*)>\s*<summary>([^<]*)</summary>", dom)
    ck.equal([s for _, s in ids], ["AUROC", "PR curves", "Calibration", "SVD cost"],
             "the browser's DOM has the four sections in order")
    ck.true(all(" open" not in a for a, _ in ids), "every section is closed by default in the browser")
    closed = os.path.join(tmp, "closed.html")
    open(closed, "w").write(text.replace("</body>", MEASURE + "</body>"))
    r = chrome(exe, profile, ["--dump-dom", "--window-size=1000,1400"], "file://" + closed)
    m = re.search(r'<pre id="measured">(.*?)</pre>', r.stdout, flags=re.S)
    ck.true(m is not None, "the measuring copy ran in the browser")
    lines = [l.split() for l in (m.group(1).strip().splitlines() if m else [])]
    sizes = [l[1:] for l in lines if l[0] == "svg"]
    dets = [l[1:] for l in lines if l[0] == "details"]
    ck.equal(len(sizes), 4, "the report has its four plots (ROC, PR, reliability, SVD cost)")
    ck.equal(len(dets), 4, "four sections measured")
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
    ck.equal(sorted({s[0] for s in sizes}), sorted(["auroc", "pr", "calibration", "svd"]),
             "every section has a plot")
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
    if os.environ.get("MLEVAL_KEEP_SCREENSHOT"):
        shutil.copy(png, os.environ["MLEVAL_KEEP_SCREENSHOT"])
    shutil.rmtree(tmp, ignore_errors=True)
    ck.finish()


if __name__ == "__main__":
    main()
