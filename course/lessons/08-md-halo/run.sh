#!/usr/bin/env bash
# course/lessons/08-md-halo/run.sh (lesson 8): the MD app's staged halo exchange, correct and
# with a planted mistake (docs/course/08-md-halo.md). The program is md/ itself; its broken
# twins are its planted bugs (SHMEMU_BUG, docs/checking.md "Planted bugs").
#
#   course/lessons/08-md-halo/run.sh serial        the 1-PE reference (no halo at all)
#   course/lessons/08-md-halo/run.sh fused         4 PEs, 2x2x1, the fused halo kernels
#   course/lessons/08-md-halo/run.sh BUG           the same with SHMEMU_BUG=BUG under the
#                                                  deterministic scheduler (random, seed 1)
# Each prints the run's last line "checksum <hex>". MD names the program (default
# bin/shmemu-md, as `make` builds it).
set -u
md=${MD:-bin/shmemu-md}
fused=(--cells 4 --pes 4 --dd 2x2x1 --halo fused --transport direct --steps 2)
case "${1:-}" in
serial) exec "$md" --cells 4 --pes 1 --halo serial --steps 2 ;;
fused) exec "$md" "${fused[@]}" ;;
"" | -*) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
*) SHMEMU_BUG=$1 SHMEMU_SCHED=random SHMEMU_SEED=1 exec "$md" "${fused[@]}" ;;
esac
