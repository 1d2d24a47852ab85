"""ember_dependencies: the repositories Ember's targets need, for a workspace
that uses Ember through local_repository.

    # WORKSPACE of your project
    local_repository(name = "ember", path = "/path/to/ember")

    load("@ember//bazel:repositories.bzl", "ember_dependencies")

    ember_dependencies(ember_path = "/path/to/ember")

Defines, unless the workspace already has them: the offline stand-ins for what
@bazel_tools loads (rules_cc, rules_java, remote_coverage_tools, from Ember's
third_party/bazel), Debian's platforms and bazel_skylib, and the Debian
libraries a backend's build and tests reach: GoogleTest, oneDNN (the CPU
plugin) and zlib. Nothing is downloaded: Ember's own WORKSPACE
declares the same set, plus what nn/, tools/ and distributed/ need. `ember_path` is the `path` given to local_repository: a macro cannot
read it from @ember itself. examples/out_of_tree_backend/WORKSPACE uses it.
"""

def _maybe(rule, name, **kwargs):
    if not native.existing_rule(name):
        rule(name = name, **kwargs)

def ember_dependencies(ember_path):
    """Declares the repositories @ember's plugin SDK, core and tests use."""
    for shim in ["rules_cc", "rules_java", "remote_coverage_tools"]:
        _maybe(
            native.local_repository,
            shim,
            path = ember_path + "/third_party/bazel/" + shim,
        )
    _maybe(native.local_repository, "platforms", path = "/usr/share/bazel/tools/platforms")
    _maybe(native.local_repository, "bazel_skylib", path = "/usr/share/bazel/tools/skylib")
    for name, build_file in [
        ("com_google_googletest", "gtest.BUILD"),
        ("dnnl", "dnnl.BUILD"),
        ("zlib", "zlib.BUILD"),
    ]:
        _maybe(
            native.new_local_repository,
            name,
            build_file = "@ember//third_party:" + build_file,
            path = "/usr",
        )
