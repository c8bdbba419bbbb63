#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Every text output fits 80 columns (not on a terminal, no $COLUMNS), or
# $COLUMNS, or the terminal's width on a terminal: help and every
# command's --help, status, stats, runs, report, compare of 3 and of 9
# runs, capacity records, and watch on a terminal.  No line is lost:
# the widest tables come out in parts that repeat their first column.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

FIX=$TOP_SRCDIR/tests/fixtures
unset COLUMNS
# widest FILE: the longest line's length in characters.
widest() { LC_ALL=C.UTF-8 awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1"; }
# fits LIMIT WHAT COMMAND...: the text output of stressctl COMMAND fits.
fits() {
	local lim=$1 what=$2 w
	shift 2
	"$STRESSCTL" --socket "$SOCK" "$@" >"$T/out" 2>&1 ||
	    fail "$what: exited $?: $(head -c 600 "$T/out")"
	w=$(widest "$T/out")
	[ "$w" -le "$lim" ] ||
	    fail "$what: $w columns, over $lim: $(awk -v l="$lim" 'length($0) > l' "$T/out" | head -3)"
	echo "$what $w" >>"$T/widths"
}

for i in $(seq 9); do
	start_run --dir "$T/rrd$i" --files 20 --max-updates 200 \
	    --update-time 1 --rra "$RRA" --label "a fairly long label $((i % 3))" \
	    --sample-interval 0.1 >/dev/null
	wait_run >/dev/null
done

fits 80 "help" help
fits 80 "--help" --help
for c in start stop stats status wait capacity sweep report runs help \
    version compare watch graph; do
	fits 80 "$c --help" "$c" --help
done
fits 80 "status --all" status --all
fits 80 "stats" stats
fits 80 "stats --all" stats --all
fits 80 "wait --all" wait --all
fits 80 "runs" runs
fits 80 "runs --all" runs --all
fits 80 "report" report 1
fits 80 "compare of 3" compare 1 2 3
fits 80 "compare of 9" compare 1 2 3 4 5 6 7 8 9
fits 80 "report of a fast run" report "$FIX/report-run.json"
fits 80 "capacity record" report "$FIX/capacity-alpha.json"
fits 80 "compare of capacity records" compare "$FIX/capacity-alpha.json" \
    "$FIX/capacity-beta.json"

# Nothing lost: every run's id and verdict is in the runs table's parts.
"$STRESSCTL" --socket "$SOCK" runs >"$T/runs"
for i in $(seq 9); do
	grep -qE "^ *$i  " "$T/runs" || fail "run $i missing from runs"
done
assert_eq "$(grep -c 'cannot tell\|kept up\|fell behind' "$T/runs")" 9 \
    "a verdict per run"

# $COLUMNS widens it, and on a terminal its width rules.
COLUMNS=200 fits 200 "runs at COLUMNS=200" runs
assert_num "$(widest "$T/out")" ">" 80 "runs uses a width of 200"
assert_eq "$(grep -c '^ID ' "$T/out")" 1 "runs in one part at 200 columns"
COLUMNS=60 fits 60 "runs at COLUMNS=60" runs
on_pty 100 runs >"$T/tty" || fail "script(1) failed"
w=$(widest "$T/tty")
[ "$w" -le 100 ] && [ "$w" -gt 80 ] ||
    fail "runs on a terminal of 100 columns: $w columns wide"
# watch on a terminal of 80 columns (its plain lines, off a terminal,
# are one key=value record per refresh for logs, and stay whole).
on_pty 80 watch --count 1 | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' >"$T/watch" ||
    fail "script(1) failed"
grep -q 'run 9' "$T/watch" || fail "watch showed no run: $(cat "$T/watch")"
w=$(widest "$T/watch")
[ "$w" -le 80 ] || fail "watch on a terminal of 80 columns: $w wide"
log "ok: $(sort -k2 -n -t' ' "$T/widths" | tail -1 | sed 's/ \([0-9]*\)$/ (\1)/') the widest of $(wc -l <"$T/widths") outputs"
