# bench/results_section.sh: sourced by the bench scripts that own a section of
# bench/RESULTS.md (md_lammps.sh, halo_variants.sh, races.sh, sched_explore.sh, cg.sh,
# backends.sh).
#
#   replace_results_section FILE BEGIN END < body
#   replace_results_section_log FILE BEGIN END LOG < body
#   replace_results_section_log_reading FILE BEGIN END LOG READING_BEGIN READING_END < body
#
# Writes FILE with the lines from BEGIN to END (markers included) replaced by BEGIN, the body
# read from standard input, and END; the section goes at the end when FILE has none. The file
# is written whole (a temporary file, then rename), so a run that dies leaves the old one.
# bench/run.sh rewrites the rest of the file and keeps these sections. The _log form puts
# LOG's lines after the body, in a collapsed "raw log" block. The _reading form also keeps the
# hand-written reading of the results (between READING_BEGIN and READING_END, where the
# old section had it) right after the new section.
replace_results_section() {
    local file=$1 begin=$2 end=$3
    local tmp=$file.tmp.$$
    {
        if [ -f "$file" ]; then
            awk -v b="$begin" -v e="$end" '$0 == b { skip = 1 } !skip { print } $0 == e { skip = 0 }' "$file"
        fi
        echo "$begin"
        cat
        echo "$end"
    } >"$tmp" && mv -f "$tmp" "$file" || { rm -f "$tmp"; return 1; }
}

replace_results_section_log() {
    local file=$1 begin=$2 end=$3 log=$4
    {
        cat
        echo
        echo "<details><summary>raw log</summary>"
        echo
        echo '```'
        cat "$log"
        echo '```'
        echo
        echo "</details>"
    } | replace_results_section "$file" "$begin" "$end"
}

replace_results_section_log_reading() {
    local file=$1 begin=$2 end=$3 log=$4 rbegin=$5 rend=$6 reading=""
    if [ -f "$file" ]; then
        reading=$(awk -v b="$rbegin" -v e="$rend" '$0 == e { keep = 0 } keep { print } $0 == b { keep = 1 }' "$file")
    fi
    replace_results_section_log "$file" "$begin" "$end" "$log" || return 1
    # The section went to the end of the file: the reading follows it there.
    [ -z "$reading" ] || printf '%s\n' "$reading" | replace_results_section "$file" "$rbegin" "$rend"
}

# The end of cg.sh and backends.sh: the section with the optional note (NOTE) and, when
# FAILURES is not 0, a line saying so (WHAT: what can have failed), printed and written with
# the raw log and the kept reading (globals RESULTS BEGIN END LOG READING_BEGIN READING_END),
# then "NAME: wrote ..." with the run's time (WALL). Exits 2 when the file cannot be written,
# returns non-zero when anything failed.
finish_results_section() {
    local name=$1 note=$2 failures=$3 what=$4 wall=$5 section
    section=$(cat)
    [ -z "$note" ] || section="$section

$note"
    [ "$failures" = 0 ] || section="$section

**$failures failure(s) in this run ($what): see the raw log.**"
    echo "$section"
    echo "$section" | replace_results_section_log_reading "$RESULTS" "$BEGIN" "$END" "$LOG" \
        "$READING_BEGIN" "$READING_END" || { echo "$name: could not write $RESULTS" >&2; exit 2; }
    echo "$name: wrote $RESULTS ($wall s)" >&2
    [ "$failures" -eq 0 ]
}
