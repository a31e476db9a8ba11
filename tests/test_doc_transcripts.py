# SPDX-License-Identifier: MIT
"""The docs' sqlite3 transcripts are true: each block marked

    <!-- transcript: FROM DIR [after COMMANDS] -->
    ```
    sqlite> SELECT ...;
       ...> continued;
    output line
    ```

is run in the sqlite3 shell with mleval loaded, from the folder DIR of the
source tree (where its `.import`/`.read` find their files), after the shell
commands COMMANDS (`;`-separated dot commands, not shown in the block, e.g.
`.read sql/demo_data.sql`), and each statement's output (stdout and stderr,
"Runtime error near line N:" read as "Runtime error:") must be the lines that
follow it in the block, exactly (issue 46: the examples used tables neither
shown nor shipped).  Every docs/*.md is scanned; the suite fails when no
block is marked (the markers were lost) or a marked block has no statement.
"""
import glob
import os
import re
import subprocess
import sys

import mltest

SRC = os.path.abspath(os.environ.get("srcdir", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")))
SQLITE3 = os.environ.get("SQLITE3", "sqlite3")
MARK = re.compile(r"^<!-- transcript: FROM (\S+)(?: after (.*?))? -->$")
END = "@@mleval-transcript-end@@"


def blocks(path):
    """(line number, folder, preamble commands, block lines) of each marked block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        j = i + 1
        if j >= len(lines) or not lines[j].startswith("```"):
            out.append((i + 1, m.group(1), m.group(2), None))
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith("```"):
            k += 1
        out.append((i + 1, m.group(1), m.group(2), lines[j + 1:k]))
    return out


def statements(body):
    """[(statement text, expected output lines)] of a block."""
    out = []
    for line in body:
        if line.startswith("sqlite> "):
            out.append([line[len("sqlite> "):], []])
        elif line.startswith("   ...> ") and out and not out[-1][1]:
            out[-1][0] += "\n" + line[len("   ...> "):]
        elif out:
            out[-1][1].append(line)
    return out


def run(folder, preamble, stmts):
    script = []
    for c in (preamble or "").split(";"):
        if c.strip():
            script.append(c.strip())
    script.append(".print " + END)
    for text, _ in stmts:
        script.append(text)
        script.append(".print " + END)
    p = subprocess.run(["stdbuf", "-o0", "-e0", SQLITE3, "-batch", "-cmd", ".load " + os.path.abspath(mltest.LIB), ":memory:"],
                       input="\n".join(script) + "\n", capture_output=False, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, cwd=os.path.join(SRC, folder))
    text = re.sub(r"^(Parse|Runtime) error near line \d+:", r"\1 error:", p.stdout, flags=re.M)
    parts = text.split(END + "\n")
    return parts[0], parts[1:-1] + ([parts[-1]] if parts[-1] else [])


def main():
    ck = mltest.Checker("doc transcripts")
    marked = 0
    for path in sorted(glob.glob(os.path.join(SRC, "docs", "*.md"))):
        name = os.path.basename(path)
        for lineno, folder, preamble, body in blocks(path):
            marked += 1
            where = "%s:%d" % (name, lineno)
            if body is None:
                ck.true(False, "%s: a transcript marker must be followed by a ``` block" % where)
                continue
            stmts = statements(body)
            ck.true(len(stmts) > 0, "%s: the marked block has sqlite> statements" % where)
            pre, outs = run(folder, preamble, stmts)
            ck.equal(pre, "", "%s: the preamble (%s) prints nothing" % (where, preamble))
            ck.equal(len(outs), len(stmts), "%s: every statement ran" % where)
            for (text, want), got in zip(stmts, outs):
                ck.equal(got.rstrip("\n").split("\n") if got.strip("\n") else [],
                         [w for w in want] if any(w.strip() for w in want) else [],
                         "%s: output of %s" % (where, text.split("\n")[0][:70]))
    ck.true(marked >= 2, "docs hold marked transcripts (%d found)" % marked)
    print("%d transcripts checked" % marked)
    ck.finish()


if __name__ == "__main__":
    main()
