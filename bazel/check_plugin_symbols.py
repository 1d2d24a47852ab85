"""Checks that a plugin defines none of the core's symbols.

Usage: check_plugin_symbols.py PLUGIN.so CORE.so OUT

Note [Plugins define no core symbols]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A plugin that carried its own copy of a core function (because it linked a
core library statically, or defined one by hand) would register into a
dispatcher nobody calls, or free with an allocator registry nobody fills
(DESIGN.md, "One process, one core"). The dynamic loader would not complain:
the plugin's own definition silently wins inside the plugin. So
`ember_plugin` (bazel/plugin.bzl) runs this at build time: every strong
symbol (nm types T, D, B, R) the plugin defines must not also be a strong
symbol of libember_core.so. Weak definitions (inline functions, template
instantiations: W, V, u) are expected in both and are left out. On success
OUT gets a one-line summary; on failure the build fails with the symbols.
"""

import subprocess
import sys

STRONG = set("TDBR")
# Defined by the linker in every shared object.
LINKER = {"__bss_start", "_edata", "_end", "_init", "_fini"}


def defined(path):
    """The strong dynamic symbols `path` defines, demangled -> mangled."""
    out = subprocess.run(["nm", "-D", "--defined-only", path], check=True,
                         capture_output=True, text=True).stdout
    symbols = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in STRONG and parts[2] not in LINKER:
            symbols.add(parts[2])
    return symbols


def main():
    plugin, core, out = sys.argv[1:4]
    shared = sorted(defined(plugin) & defined(core))
    if shared:
        names = subprocess.run(["c++filt"], input="\n".join(shared), check=True,
                               capture_output=True, text=True).stdout.split("\n")
        sys.stderr.write(
            "ember_plugin: %s defines %d symbol(s) of the core (libember_core.so):\n"
            "  %s\n"
            "A plugin must reach the core through the process's libember_core.so. "
            "Depend on //:ember_plugin_sdk (headers only), not on core libraries, and do "
            "not define core functions yourself. See Note [Plugins define no core "
            "symbols] in bazel/check_plugin_symbols.py.\n"
            % (plugin, len(shared), "\n  ".join(n for n in names[:20] if n)))
        return 1
    with open(out, "w") as f:
        f.write("%s: no core symbols\n" % plugin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
