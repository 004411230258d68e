# scripts/plant_config.sh: sourced by the scripts that run the bug catalogue's
# configurations (detection-matrix.sh, detection-fast.sh). They set MD (the shmemu-md to
# run) and STEPS first.
#
#   split_config CONFIG   sets ENVS (the VAR=value words of a catalogue configuration) and
#                         ARGS (its shmemu-md arguments, then --steps $STEPS)
#   reference CONFIG      prints the reference checksum: 1 PE, serial halo, the same system
#                         and steps

split_config() {
    ENVS=()
    ARGS=()
    for w in $1; do
        if [[ "$w" =~ ^[A-Z_][A-Z0-9_]*= ]]; then ENVS+=("$w"); else ARGS+=("$w"); fi
    done
    ARGS+=(--steps "$STEPS")
}

reference() {
    split_config "$1"
    local sys=() skip=0
    for w in "${ARGS[@]}"; do
        if [ "$skip" = 1 ]; then skip=0; continue; fi
        case "$w" in --pes | --dd | --halo | --transport | --bulk-copy) skip=1 ;; *) sys+=("$w") ;; esac
    done
    "$MD" "${sys[@]}" --pes 1 --halo serial 2>/dev/null | awk '$1 == "checksum" { s = $2 } END { print s }'
}
