#!/bin/bash
# Runs one op-conformance suite binary (its path, then its arguments) with
# the environment the sh_test sets (EMBER_CPU_CAPABILITY,
# EMBER_CONFORMANCE_DEVICES); see BUILD.bazel.
exec "$@"
