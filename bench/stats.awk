# bench/stats.awk: the statistics over rounds that the bench scripts' summaries share
# (bench/cg.sh, bench/backends.sh). Not a program: a script puts this text before its own
# awk program (awk -v rounds=N "$(cat bench/stats.awk)"'...'), which must set `rounds` (the
# rounds are 1..rounds).

# The median of a[1..n] (sorts a in place); -1 when n is 0.
function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n == 0 ? -1 : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
}
# The value of field f=value in the current log line; "" when it has none.
function val(f,   i, kv) { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) return kv[2] } return "" }
# "median (lo-hi)" of a[1..n], each in the printf format fmt; "no data" when n is 0.
function spread(a, n, fmt,   i, lo, hi) {
    for (i = 1; i <= n; i++) {
        if (i == 1 || a[i] < lo) lo = a[i]
        if (i == 1 || a[i] > hi) hi = a[i]
    }
    return n == 0 ? "no data" : sprintf(fmt " (" fmt "-" fmt ")", median(a, n), lo, hi)
}
# Copies v[key, r] into out[r], for the rounds that have it.
function col(v, key, out,   r) { delete out; for (r = 1; r <= rounds; r++) if ((key, r) in v) out[r] = v[key, r] }
# "median (lo-hi)" (%.2f) of the per-round ratios x[r] / y[r] over the rounds that have both
# (and y[r] > 0).
function ratio_cols(x, y,   r, n, q) {
    n = 0
    for (r = 1; r <= rounds; r++) if ((r in x) && (r in y) && y[r] > 0) q[++n] = x[r] / y[r]
    return spread(q, n, "%.2f")
}
# The median over rounds of v[key, r]; -1 when no round has it.
function med_rounds(v, key,   r, n, a) { n = 0; for (r = 1; r <= rounds; r++) if ((key, r) in v) a[++n] = v[key, r]; return median(a, n) }
# "median (lo-hi)" in the format fmt over rounds of v[key, r]; "no data" when no round has it.
function med_spread(v, key, fmt,   r, n, a) { n = 0; for (r = 1; r <= rounds; r++) if ((key, r) in v) a[++n] = v[key, r]; return spread(a, n, fmt) }
# "median (lo-hi)" (%.2f) of the per-round ratios v[x, r] / v[y, r].
function ratio_keys(v, x, y,   cx, cy) { col(v, x, cx); col(v, y, cy); return ratio_cols(cx, cy) }
