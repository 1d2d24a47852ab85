"""CUDA device code for the CUDA plugin (backends/cuda): nvcc objects and
the compatibility of CUDA targets.

    load("//bazel:cuda.bzl", "cuda_objects", "cuda_compatible")

    cuda_objects(
        name = "pointwise_kernels",
        srcs = ["pointwise_kernels.cu"],   # one nvcc action per file
        hdrs = ["launch.cuh"],
        deps = ["//sdk:backend"],          # for their include paths only
    )
    cc_library(name = "kernels", srcs = [":pointwise_kernels"],
               target_compatible_with = cuda_compatible(), ...)

Note [CUDA targets and configurations]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Device code is compiled once, in the default configuration:
- where the toolkit is absent (@local_cuda's CUDA_FOUND is False) every
  target that uses cuda_compatible() is incompatible, and `bazel test //...`
  skips it (Bazel's incompatible-target skipping);
- the sanitizer and fuzz configs set --define=ember_cuda=off (.bazelrc), which
  makes the same targets incompatible: nvcc's host pass would not carry
  their instrumentation, the CI time budget does not allow compiling the
  kernels three times, and there is no device to run them on. The device-free
  half of the plugin (the caching allocator's policy, //backends/cuda:
  allocator_policy) is plain C++ and builds and runs under every config.
Each .cu file is its own action, so kernels compile in parallel; SASS for
sm_90 (H100/H200) and PTX for compute_80, which the driver JIT-compiles for
any other card from Ampere on.
"""

load("@local_cuda//:defs.bzl", "CUDA_FOUND", "CUDA_PATH")

# The nvcc flags of every .cu file; the one place they are set.
NVCC_FLAGS = [
    "-std=c++17",
    "-O3",
    "-lineinfo",
    "-Xcompiler",
    "-fPIC",
    "-gencode",
    "arch=compute_90,code=sm_90",
    "-gencode",
    "arch=compute_80,code=compute_80",
    # Warnings are errors in Ember's device code too.
    "-Werror",
    "all-warnings",
]

def cuda_compatible():
    """target_compatible_with for every target that needs the toolkit."""
    if not CUDA_FOUND:
        return ["@platforms//:incompatible"]
    return select({
        "//bazel:cuda_off": ["@platforms//:incompatible"],
        "//conditions:default": [],
    })

def if_cuda(if_true, if_false = []):
    """if_true where CUDA targets build (toolkit found, not a sanitizer or
    fuzz config), else if_false: e.g. a program's data gets the CUDA plugin
    only where it exists."""
    if not CUDA_FOUND:
        return if_false
    return select({
        "//bazel:cuda_off": if_false,
        "//conditions:default": if_true,
    })

def _cuda_objects_impl(ctx):
    nvcc = CUDA_PATH + "/bin/nvcc"
    includes = [".", ctx.bin_dir.path, ctx.genfiles_dir.path]
    system_includes = []
    headers = []
    defines = []
    for dep in ctx.attr.deps:
        cc = dep[CcInfo].compilation_context
        includes += cc.includes.to_list() + cc.quote_includes.to_list()
        system_includes += cc.system_includes.to_list()
        headers.append(cc.headers)
        defines += cc.defines.to_list()
    inputs = depset(ctx.files.hdrs, transitive = headers)
    objects = []
    for src in ctx.files.srcs:
        stem = src.basename[:-len(src.extension) - 1]
        out = ctx.actions.declare_file("_cuda_objs/%s/%s.o" % (ctx.label.name, stem))
        args = ctx.actions.args()
        args.add("-ccbin", ctx.attr.host_compiler)
        args.add_all(NVCC_FLAGS)
        args.add_all(ctx.attr.copts)
        args.add_all(defines, format_each = "-D%s")
        args.add_all(includes, format_each = "-I%s", uniquify = True)
        args.add_all(system_includes, before_each = "-isystem", uniquify = True)
        args.add("-c", src)
        args.add("-o", out)
        ctx.actions.run(
            executable = nvcc,
            arguments = [args],
            inputs = depset([src], transitive = [inputs]),
            outputs = [out],
            mnemonic = "Nvcc",
            # PATH for the host compiler's assembler and linker (the
            # strict action environment's fixed one).
            use_default_shell_env = True,
            progress_message = "nvcc %s" % src.short_path,
        )
        objects.append(out)
    return [DefaultInfo(files = depset(objects))]

_cuda_objects = rule(
    implementation = _cuda_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = [".cuh", ".h"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
        "host_compiler": attr.string(default = "/usr/bin/g++"),
    },
)

def cuda_objects(name, srcs, hdrs = [], deps = [], copts = [], **kwargs):
    """Objects compiled by nvcc from `srcs`, one action per file, for a
    cc_library's srcs. Skipped where CUDA is absent or off (See Note [CUDA targets and
    configurations])."""
    _cuda_objects(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps,
        copts = copts,
        target_compatible_with = cuda_compatible(),
        **kwargs
    )
