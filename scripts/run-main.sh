#!/usr/bin/env bash
# run-main.sh: the README's first command. Installs what is missing, builds, and runs the
# main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh build
make -j2 all
make run
