#!/bin/bash
# The core under AddressSanitizer + UndefinedBehaviorSanitizer (with leak
# checking): builds the unit tests, decode_ref, simd_prop and the fuzz target
# replayers in build-san/ and runs them (tests/hardening.mk, `make sanitize`).
. "$(dirname "$0")/../lib.sh"
check "ASan + UBSan build and runs" make -C "$TOP" --no-print-directory sanitize
finish 35_sanitizers
