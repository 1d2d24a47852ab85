"""Checks that every code block of the guides comes from a file CI builds.

Usage: check_snippets.py ROOT DOC.md...

Note [Tested code blocks]
~~~~~~~~~~~~~~~~~~~~~~~~~
A fenced code block in docs/backends.md or docs/custom_ops.md is preceded by
a line

    <!-- snippet: path/in/the/repo#region -->

and must equal, line for line, the region of that file between the lines
`// [doc:region]` (or `# [doc:region]` in BUILD, WORKSPACE and .bazelrc
files) and the next `[doc:end]`. The files named are compiled and tested by
CI (examples/custom_op, examples/out_of_tree_backend, whose own docs_test
checks docs/backends.md), so a block that drifts from code that builds fails
this test. A block without a snippet line fails too, unless its fence is
```sh or ```text (commands and output, not code).
"""

import re
import sys

SNIPPET = re.compile(r"^<!-- snippet: (\S+)#(\S+) -->$")
FENCE = re.compile(r"^```(\w*)$")


def region(root, path, name):
    lines = open("%s/%s" % (root, path)).read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if line.strip() in ("// [doc:%s]" % name, "# [doc:%s]" % name):
            start = i + 1
        elif start is not None and line.strip() in ("// [doc:end]", "# [doc:end]"):
            return lines[start:i]
    raise ValueError("%s has no region [doc:%s] ... [doc:end]" % (path, name))


def check(root, doc):
    errors = []
    lines = open(doc).read().split("\n")
    pending = None
    i = 0
    while i < len(lines):
        m = SNIPPET.match(lines[i])
        if m:
            pending = (m.group(1), m.group(2), i + 1)
            i += 1
            continue
        f = FENCE.match(lines[i])
        if f:
            lang = f.group(1)
            end = i + 1
            while end < len(lines) and lines[end] != "```":
                end += 1
            block = lines[i + 1:end]
            if pending is None:
                if lang not in ("sh", "text"):
                    errors.append("%s:%d: a ```%s block without a <!-- snippet: "
                                  "path#region --> line above it" % (doc, i + 1, lang))
            else:
                path, name, line = pending
                try:
                    want = region(root, path, name)
                    if block != want:
                        errors.append("%s:%d: the block differs from %s#%s; paste the "
                                      "region again:\n%s" % (doc, line, path, name,
                                                             "\n".join(want)))
                except (OSError, ValueError) as e:
                    errors.append("%s:%d: %s" % (doc, line, e))
            pending = None
            i = end + 1
            continue
        if lines[i].strip():
            pending = None if not lines[i].startswith("<!--") else pending
        i += 1
    return errors


def main():
    root, docs = sys.argv[1], sys.argv[2:]
    errors = []
    for doc in docs:
        errors += check(root, doc)
    for e in errors:
        print(e, file=sys.stderr)
    if not errors:
        print("PASS: %d guide(s)" % len(docs))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
