"""Build macros for Ember's packages.

Note [One core shared object]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The core (c10, registration, aten, autograd) is linked into exactly one shared
object, //:libember_core.so, so that a process has one Dispatcher, one
allocator registry and one autograd Engine (DESIGN.md, "One process, one
core"). Every core library is therefore declared twice by
`ember_core_library`:

  <name>_impl  the sources, `alwayslink`, visible only to core packages and to
               the root package that links the shared object;
  <name>       the headers only, plus a dependency on the shared object.

Everything outside the core (tests, tools, plugins) depends on `<name>`, so it
compiles against the headers and links the one shared object dynamically.
A target that depended on `<name>_impl` would carry a second copy of the core;
visibility forbids it.
"""

def _impl_label(dep):
    """Maps a core header target to its implementation target."""
    if ":" in dep:
        return dep + "_impl"
    return dep + ":" + dep.split("/")[-1] + "_impl"

def ember_core_library(
        name,
        hdrs = [],
        srcs = [],
        deps = [],
        external_deps = [],
        visibility = None,
        **kwargs):
    """A library of the core shared object (See Note [One core shared object]).

    Args:
      name: target name; `name` is the headers, `name + "_impl"` the code.
      hdrs: public headers.
      srcs: sources and private headers, compiled into libember_core.so.
      deps: other core libraries (their header targets).
      external_deps: system libraries (e.g. "@com_google_absl//:status").
      visibility: of the header target.
      **kwargs: passed to both cc_library rules.
    """
    native.cc_library(
        name = name + "_impl",
        hdrs = hdrs,
        srcs = srcs,
        # thread_locals through TLS descriptors: See Note [TLS model of the
        # key sets] in c10/core/impl/LocalDispatchKeySet.cc. Clang 14
        # (--config=asan, the fuzz build) has no such flag and keeps its
        # default model.
        copts = select({
            "//bazel:fuzzing": [],
            "//conditions:default": ["-mtls-dialect=gnu2"],
        }),
        deps = [_impl_label(d) for d in deps] + external_deps,
        alwayslink = True,
        visibility = ["//bazel:core_packages"],
        **kwargs
    )
    native.cc_library(
        name = name,
        hdrs = hdrs,
        deps = deps + external_deps + ["//core:ember_core_import"],
        visibility = visibility,
        **kwargs
    )

def ember_cc_test(name, srcs, deps = [], size = "small", single_threaded = False, tags = [], **kwargs):
    """A GoogleTest suite; `deps` are what it tests.

    Every suite also gets gtest/gmock and ember_test::errorOf
    (tests/support/error_of.h). `single_threaded = True` declares that the
    suite starts no thread where OpenMP has one: it is tagged
    single_threaded, which --config=tsan leaves out, and fails under
    --config=asan if it starts one (See Note [Suites TSan leaves out] in
    .bazelrc).
    """
    native.cc_test(
        name = name,
        srcs = srcs,
        size = size,
        deps = deps + [
            "@com_google_googletest//:gtest_main",
            "//tests/support:error_of",
        ] + (["//tests/support:one_thread_check"] if single_threaded else []),
        tags = tags + (["single_threaded"] if single_threaded else []),
        **kwargs
    )

def ember_benchmark(name, srcs, deps = [], **kwargs):
    """A Google Benchmark binary under tools/bench, tagged `benchmark`.

    Run it optimized: ./bazelw run -c opt //tools/bench:<name>
    """
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + ["@com_google_benchmark//:benchmark_main"],
        tags = ["benchmark"],
        **kwargs
    )

def ember_backend_registration(name, key, namespace, deps = [], visibility = None):
    """A backend's kernel declarations and registrations, generated.

    Runs bazel/codegen/gen_aten.py over aten's op list for the
    `dispatch=<key>:kernel` entries and makes a cc_library `name` with

      <key>Kernels.h    hdrs: each kernel declared with its schema's C++
                        signature, in `namespace` unless the entry is
                        qualified; the backend's sources include it, so a
                        definition that does not match fails to build
      Register<key>.cc  srcs: TORCH_LIBRARY_IMPL(aten, <key>, m) with one
                        m.impl per kernel (alwayslink)

    The kernels' own libraries depend on `name` for the header; the plugin's
    shared object links both.
    """
    pkg = native.package_name()
    header = key + "Kernels.h"
    source = "Register" + key + ".cc"
    native.genrule(
        name = name + "_generated",
        srcs = ["//aten:native_functions"],
        outs = [header, source],
        cmd = ("python3 $(location //bazel/codegen:gen_aten.py) --backend %s " +
               "--namespace %s --header %s $(SRCS) $(OUTS)") % (
            key,
            namespace,
            (pkg + "/" if pkg else "") + header,
        ),
        tools = ["//bazel/codegen:gen_aten.py"],
    )
    native.cc_library(
        name = name,
        hdrs = [header],
        srcs = [source],
        alwayslink = True,
        deps = deps,
        visibility = visibility,
    )
