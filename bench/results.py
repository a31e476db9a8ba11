# SPDX-License-Identifier: MIT
"""results.py -- regenerate bench/RESULTS.md's tables in one command.

    /usr/bin/python3 bench/results.py [--lib L] [--floor F] [--file RESULTS.md] [--print] JOB...

Each JOB runs one benchmark script with --markdown (its console lines still
show, on stderr) and replaces, in --file, every table the script printed:
the text between <!-- bench:NAME --> and <!-- /bench:NAME --> becomes a line
saying when, at which commit, on which machine (and under what load average)
and by which command it was measured, followed by the script's table.  Sections the run did not print
are left as they are (they carry their own date and commit).

Jobs (make targets in parentheses):
  ranking families windows states uncertainty   (make bench)
  instr        bench_instr.py --rows 100000: ranking-ir, calibration-ir,
               weighted-ir, states-ir                        (make bench-instr)
  states365    MLEVAL_BENCH_STATES=1 bench_instr.py --rows 1000000: states-365
                                         (MLEVAL_BENCH_STATES=1 make bench-instr)
  monitoring   MLEVAL_BENCH_MONITORING=1 bench_instr.py --rows 1000000: monitoring
                                     (MLEVAL_BENCH_MONITORING=1 make bench-instr)
  multiclass   bench_multiclass.py (issue 34): multiclass-ir (callgrind, 10^6
               rows), multiclass-k (k = 2..16, 10^5 rows), multiclass-wall,
               multiclass-memory
  multiclass-wall  bench_multiclass.py --only wall: multiclass-wall alone
  clinical     bench_clinical.py (issue 36): calibration_smooth at 10^5 and
               10^6 rows (and R's lowess), decision_curve_ci
  survival     bench_survival.py (issue 47): part 1's functions from the records
               against their floor (callgrind, 2·10^5 rows), CPU at 10^5 and
               10^6 rows, bytes held a row, and survival::concordance and
               riskRegression::Score on the same rows          (make bench-survival)
  survival2    bench_survival2.py (issue 49): surv_decision_curve in one pass
               against 99 surv_net_benefit, part 2's costs at 10^6 rows, and the
               coverage of surv_auroc_ci / surv_brier_ci over 200 cohorts
  svd          bench_svd.py                                  (make bench-svd)
  report       bench_report.py (mleval-report on 10^6 rows)

With MLEVAL_BENCH_ONLY set (a partial run) or --print, the tables are
printed instead of written.  A job that fails leaves its sections alone and
makes the exit status 1.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable or "/usr/bin/python3"

# job -> (script, its arguments, the options it takes of --lib and --floor, environment)
JOBS = {
    "ranking": ("bench_ranking.py", [], "lib floor", {}),
    "families": ("bench_families.py", [], "lib floor", {}),
    "windows": ("bench_windows.py", [], "lib floor", {}),
    "states": ("bench_states.py", [], "lib", {}),
    "uncertainty": ("bench_uncertainty.py", [], "lib", {}),
    "instr": ("bench_instr.py", ["--rows", "100000"], "lib floor", {}),
    "states365": ("bench_instr.py", ["--rows", "1000000"], "lib floor", {"MLEVAL_BENCH_STATES": "1"}),
    "monitoring": ("bench_instr.py", ["--rows", "1000000"], "lib floor", {"MLEVAL_BENCH_MONITORING": "1"}),
    "multiclass": ("bench_multiclass.py", [], "lib floor", {}),
    "multiclass-wall": ("bench_multiclass.py", ["--only", "wall"], "lib floor", {}),
    "clinical": ("bench_clinical.py", [], "lib", {}),
    "survival": ("bench_survival.py", [], "lib floor", {}),
    "survival2": ("bench_survival2.py", [], "lib", {}),
    "svd": ("bench_svd.py", [], "lib", {}),
    "report": ("bench_report.py", [], "", {}),     # tools/mleval-report finds the build's mleval itself
}

BLOCK = re.compile(r"<!-- bench:([\w-]+) -->\n(.*?)<!-- /bench:\1 -->", re.S)


def machine():
    """'2 CPUs (model), 23 GiB, SQLite x.y.z': nproc, /proc/cpuinfo, /proc/meminfo."""
    model, mem = "unknown CPU", 0
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            model = m.group(1).strip() if m else model
        with open("/proc/meminfo") as f:
            mem = int(re.search(r"^MemTotal:\s*(\d+) kB", f.read(), re.M).group(1)) / 2**20
    except OSError:
        pass
    try:
        sqlite = subprocess.run(["sqlite3", "--version"], capture_output=True, text=True).stdout.split()[0]
    except (OSError, IndexError):
        import sqlite3
        sqlite = sqlite3.sqlite_version
    return "%d CPUs (%s), %.0f GiB, SQLite %s" % (len(os.sched_getaffinity(0)), model, mem, sqlite)


def commit(top):
    """The short commit of the source tree, '+ uncommitted changes' when
    anything tracked but RESULTS.md differs from it."""
    git = lambda *a: subprocess.run(["git", "-C", top] + list(a), capture_output=True, text=True).stdout  # noqa: E731
    head = git("rev-parse", "--short", "HEAD").strip() or "unknown"
    dirty = [ln for ln in git("status", "--porcelain", "--untracked-files=no").splitlines()
             if not ln.endswith("bench/RESULTS.md")]
    return head + (" + uncommitted changes" if dirty else "")


def run_job(job, a):
    """The blocks {name: table text} that job's script printed (None if it failed)."""
    script, extra, opts, env = JOBS[job]
    cmd = [PY, os.path.join(HERE, script), "--markdown"] + (["--lib", a.lib] if "lib" in opts else []) + \
        (["--floor", a.floor] if "floor" in opts else []) + extra
    e = dict(os.environ)
    for k, v in env.items():
        e[k] = os.environ.get(k) or v
    shown = " ".join(["%s=%s" % (k, e[k]) for k in env] + ["bench/" + script] + extra)
    print("results.py: %s" % shown, file=sys.stderr, flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=e)
    if p.returncode != 0:
        print("results.py: %s failed (exit %d); its sections are left as they were" % (job, p.returncode),
              file=sys.stderr)
        return None
    return {m.group(1): m.group(2) for m in BLOCK.finditer(p.stdout)}, shown


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="ext/.libs/mleval")
    ap.add_argument("--floor", default="bench/.libs/floor")
    ap.add_argument("--file", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--print", action="store_true", help="print the tables, do not write the file")
    ap.add_argument("jobs", nargs="+", choices=sorted(JOBS))
    a = ap.parse_args()
    a.lib, a.floor = os.path.abspath(a.lib), os.path.abspath(a.floor)
    write = not a.print and not os.environ.get("MLEVAL_BENCH_ONLY")
    where = "on %s" % machine()
    at = commit(os.path.dirname(HERE))
    failed = False
    for job in a.jobs:
        load0 = os.getloadavg()[0]        # wall-clock tables: how busy the machine was
        r = run_job(job, a)
        if r is None:
            failed = True
            continue
        blocks, shown = r
        today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        load = "load average %.1f at the start, %.1f at the end" % (load0, os.getloadavg()[0])
        with open(a.file) as f:           # read now: the file may have been edited during a long run
            text = f.read()
        for name, table in blocks.items():
            # a block that opens with a sentence (mlbench.markdown's note) continues this one
            body = "Measured %s at %s %s, %s: `%s`.\n%s%s" % (today, at, where, load, shown,
                                                        "\n" if table.startswith("|") else "", table)
            new = "<!-- bench:%s -->\n%s<!-- /bench:%s -->" % (name, body, name)
            if not write:
                print(new)
                continue
            pat = re.compile(r"<!-- bench:%s -->\n.*?<!-- /bench:%s -->" % (re.escape(name), re.escape(name)), re.S)
            if not pat.search(text):
                print("results.py: %s has no section %s; printed here instead:\n%s" % (a.file, name, new))
                continue
            text = pat.sub(lambda m: new, text)
            with open(a.file, "w") as f:      # after each job: a later job's failure keeps the earlier tables
                f.write(text)
            print("results.py: %s: section %s rewritten" % (a.file, name), file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
