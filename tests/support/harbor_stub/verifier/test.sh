#!/usr/bin/env bash
# The stand-in verifier (same-container phase, like chi-bench's tests/test.sh): scores the stub MCP
# servers' recorded calls and writes the reward Harbor reads at /logs/verifier/reward.json.
set -euo pipefail
mkdir -p /logs/verifier
node /tests/verify.mjs
