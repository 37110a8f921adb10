#!/usr/bin/env bash
# docs/ARCHITECTURE.md's path of one touch, measured (Tests/FlickDaemonTests/TouchPathTests.swift):
# the tests built with LLVM's coverage counters (and FLICKD_TOUCH_PATH, which names the counters'
# functions) in a scratch folder of their own, and the one test
# that reads the counters run alone, since they count every thread of the process.
# FLICKD_TOUCH_PATH_KEEP=FILE keeps the merged profile, for `llvm-cov report -show-functions`
# (which functions of each file ran) when the document is rewritten.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${FLICKD_TOUCH_PATH_BUILD:-.build-touch-path}
swift build --build-tests --enable-code-coverage --scratch-path "$scratch" -Xswiftc -warnings-as-errors \
  -Xswiftc -DFLICKD_TOUCH_PATH
# llvm-profdata and llvm-cov of the toolchain that built the tests (Debian's may read another
# profile format).
FLICKD_LLVM_BIN=$(dirname "$(readlink -f "$(command -v swift)")")
export FLICKD_LLVM_BIN FLICKD_TOUCH_PATH=1
# The run's own profile is not wanted: the test writes what it measures itself.
LLVM_PROFILE_FILE=/dev/null swift test --skip-build --scratch-path "$scratch" --filter TouchPathTests
