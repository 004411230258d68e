# scripts/plant_config.sh: sourced by the scripts that run the bug catalogue's
# configurations (detection-matrix.sh, detection-fast.sh). They set MD (the shmemu-md to
# run), CG (the shmemu-cg) and STEPS first. A configuration with --solver is shmemu-cg's
# (docs/cg.md), any other shmemu-md's.
#
#   split_config CONFIG   sets ENVS (the VAR=value words of a catalogue configuration),
#                         ARGS (its program's arguments; shmemu-md's then --steps $STEPS)
#                         and PROG (md or cg)
#   reference CONFIG      prints the reference checksum: md: 1 PE, serial halo, the same
#                         system and steps; cg: the serial solver (halo-serial for the
#                         halo-only loop), the same matrix, seed, tolerance and iterations

split_config() {
    ENVS=()
    ARGS=()
    for w in $1; do
        if [[ "$w" =~ ^[A-Z_][A-Z0-9_]*= ]]; then ENVS+=("$w"); else ARGS+=("$w"); fi
    done
    PROG=md
    if [[ " ${ARGS[*]} " == *" --solver "* ]]; then PROG=cg; else ARGS+=(--steps "$STEPS"); fi
}

reference() {
    split_config "$1"
    if [ "$PROG" = cg ]; then
        local cgargs=() skip=0 serial=serial
        for w in "${ARGS[@]}"; do
            if [ "$skip" = 1 ]; then
                skip=0
                [ "$w" = halo-loop ] && serial=halo-serial
                continue
            fi
            case "$w" in
            --solver | --pes | --reduce | --blocks | --threads | --partition | --transport) skip=1 ;;
            *) cgargs+=("$w") ;;
            esac
        done
        "$CG" "${cgargs[@]}" --solver "$serial" 2>/dev/null | awk '$1 == "checksum" { s = $2 } END { print s }'
        return
    fi
    local sys=() skip=0
    for w in "${ARGS[@]}"; do
        if [ "$skip" = 1 ]; then skip=0; continue; fi
        case "$w" in --pes | --dd | --halo | --transport | --bulk-copy) skip=1 ;; *) sys+=("$w") ;; esac
    done
    "$MD" "${sys[@]}" --pes 1 --halo serial 2>/dev/null | awk '$1 == "checksum" { s = $2 } END { print s }'
}
