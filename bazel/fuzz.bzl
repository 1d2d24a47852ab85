"""ember_fuzz_test: a libFuzzer target that is also an ordinary test.

Note [Fuzz targets]
~~~~~~~~~~~~~~~~~~~
A fuzz target is one source defining
`extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)`
plus a folder of seed inputs, `<name>_corpus/`, checked in (small files).

  * In the default and tsan configurations the target is a cc_test linked
    with //bazel:fuzz_corpus_main, which runs the entry point once over every
    seed file: `bazel test //...` replays the corpus, so a crash found once
    and added as a corpus file stays fixed.
  * Under --config=asan, which is also the fuzz build (.bazelrc, See Note [One
    build for ASan and fuzzing]: clang, ASan and UBSan, coverage for the
    parsing code, --define=ember_fuzz=1), the same target links libFuzzer's
    main instead (-fsanitize=fuzzer). `bazel test --config=asan` still only
    replays the seeds (libFuzzer runs the files it is given and exits);
    fuzzing is running the binary on a corpus folder:

      ./bazelw build --config=asan //tests/fuzz:json_fuzz
      cp -r tests/fuzz/json_fuzz_corpus /tmp/c && \\
        "$(./bazelw info --config=asan bazel-bin)"/tests/fuzz/json_fuzz \\
        -rss_limit_mb=2048 -max_total_time=600 /tmp/c

    .ci/run does that for ~25 s per target (tests/fuzz/run_fuzzers.sh).
"""

def ember_fuzz_test(name, srcs, deps = [], size = "small", **kwargs):
    """A fuzz target `name` over the seeds in `<name>_corpus/`."""
    seeds = name + "_seeds"
    native.filegroup(
        name = seeds,
        srcs = native.glob([name + "_corpus/*"]),
    )
    native.cc_test(
        name = name,
        srcs = srcs,
        size = size,
        deps = deps + select({
            "//bazel:fuzzing": [],
            "//conditions:default": ["//bazel:fuzz_corpus_main"],
        }),
        linkopts = select({
            "//bazel:fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        data = [":" + seeds],
        # libFuzzer's own flag; the corpus runner skips arguments that start
        # with '-'.
        args = ["-rss_limit_mb=2048", "$(locations :" + seeds + ")"],
        tags = ["fuzz_target"],
        **kwargs
    )
