#!/bin/bash
# Runs one op-conformance suite binary (its path is the argument) with the
# environment the sh_test sets (EMBER_CPU_CAPABILITY); see BUILD.bazel.
exec "$1"
