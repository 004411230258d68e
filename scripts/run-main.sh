#!/usr/bin/env bash
# run-main.sh: the README's first command. Installs what is missing, builds, and runs the
# main job: a Lennard-Jones MD run of 32 000 atoms (fcc 20x20x20 cells) on 8 PE threads,
# the fused NVSHMEM halo exchange of paper 000 (docs/papers.md; direct transport where nvshmem_ptr
# reaches the peer), 200 steps, thermo every 10 steps and the final 'checksum <16 hex>' line (the
# same bits for any --pes/--dd/--halo/--transport, e.g. --halo serial --pes 1).
# `make run` builds only bin/shmemu-md (not `make all`, whose nvcc compile of the CUDA
# sources belongs to the test suite) and runs it with the Makefile's MAIN_JOB arguments:
#   bin/shmemu-md --cells 20 --pes 8 --halo fused --steps 200
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh build
make -j2 run
