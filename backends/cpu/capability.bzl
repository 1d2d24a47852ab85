"""The CPU plugin's capability variants (docs/cpu_capability.md).

    load(":capability.bzl", "cpu_library", "CPU_CAPABILITIES", "variants_compatible")

    cpu_library(name = "pointwise", srcs = [...], deps = [":support", ...])

makes the cc_library `pointwise` (the default build, x86-64's baseline
unless the command line says otherwise) and, per capability in
CPU_CAPABILITIES, `pointwise_<cap>`: the same sources compiled with that
capability's -march level, depending on the `_<cap>` variants of the
package's other variant libraries. The plugin is linked once per capability
(libember_cpu.<cap>.so) and the loader picks one at run time (Note [CPU
capability] in registration/cpu_capability.cc), so the kernels' speed does
not depend on the flags of the program that loads them.

Note [CPU capability variants and configurations]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The variants are built in the default configurations only: the sanitizer and
fuzz configs set --define=ember_cpu_variants=off (.bazelrc), which makes
them incompatible (skipped), as the CUDA targets are there. Their code is
the default one's with other instructions allowed; the CI time budget does
not allow instrumenting it three times.
"""

# x86-64 micro-architecture levels: v3 is AVX2, FMA, F16C, BMI1/2, LZCNT,
# MOVBE; v4 adds AVX-512 F, BW, CD, DQ and VL.
CPU_CAPABILITIES = {
    "avx2": ["-march=x86-64-v3"],
    "avx512": ["-march=x86-64-v4"],
}

def _optimized():
    # Optimized builds vectorize the kernels' loops whatever -O the program
    # is built with: GCC 12's -O2 vectorizes only loops that need no runtime
    # alias checks, which the kernels' loops do (1.5x on the MLP's pointwise
    # ops at -c opt).
    return select({
        "//bazel:opt_build": ["-O3"],
        "//conditions:default": [],
    })

def variants_compatible():
    """target_compatible_with of every capability variant."""
    return select({
        "//bazel:cpu_variants_off": ["@platforms//:incompatible"],
        "//conditions:default": [],
    })

def _variant_deps(deps, variant_names, cap):
    out = []
    for d in deps:
        if d.startswith(":") and d[1:] in variant_names:
            out.append(d + "_" + cap)
        else:
            out.append(d)
    return out

# The package's libraries that have variants, so that a variant depends on
# the other libraries' variants of its capability.
VARIANT_LIBRARIES = [
    "support",
    "factories_copy",
    "pointwise",
    "reductions",
    "linalg",
    "conv_pool",
    "nn",
    "indexing",
    "random",
    "kernels",
]

def cpu_library(name, deps = [], copts = [], visibility = None, **kwargs):
    """A cc_library of the CPU plugin and its capability variants."""
    native.cc_library(
        name = name,
        deps = deps,
        copts = copts + _optimized(),
        visibility = visibility,
        **kwargs
    )
    for cap, flags in CPU_CAPABILITIES.items():
        native.cc_library(
            name = name + "_" + cap,
            deps = _variant_deps(deps, VARIANT_LIBRARIES, cap),
            copts = copts + flags + _optimized(),
            target_compatible_with = variants_compatible(),
            **kwargs
        )
