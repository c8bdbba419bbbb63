#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stressctl's record commands against a private daemon: runs, report
# (text, --json, --csv, from a copied report.json), compare of two runs in
# two directories, watch on a non-terminal, and graph writing a PNG.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

for d in a b; do
	start_run --dir "$T/$d" --files 60 --threads 4 --max-updates 6000 \
	    --update-time 2 --sample-interval 0.2 --rra "$RRA" >/dev/null
	# watch follows the run to its end on a non-terminal: plain lines
	if [ "$d" = a ]; then
		w=$(ctl watch) || fail "watch exited $?"
		grep -q 'state=running' <<<"$w" || fail "watch: no running line: $w"
		[ "$(grep -c '' <<<"$w")" -ge 3 ] || fail "watch: too few lines: $w"
	fi
	wait_run >/dev/null
done

out=$(ctl runs)
grep -q "$T/a" <<<"$out" && grep -q "$T/b" <<<"$out" ||
    fail "runs lists both dirs: $out"
assert_eq "$(ctlj runs | jq '.runs | length')" 2 "runs --json"

out=$(ctl report 1)
grep -q '^  Average: [0-9]*\.[0-9][0-9]$' <<<"$out" || fail "report: no Average line: $out"
grep -qE '^  [0-9]+: +[0-9]+ ' <<<"$out" || fail "report: no histogram lines: $out"
grep -q 'updates/sec avg since first update' <<<"$out" || fail "report: no throughput"
grep -q "$(findmnt -n -o FSTYPE -T "$T/a")" <<<"$out" || fail "report: no fs type"
assert_eq "$(ctlj report 1 | jq -c .queue_depth)" \
    "$(jq -c .queue_depth "$STATE/runs/1/report.json")" "report --json is report.json"
csv=$(ctl report 1 --csv)
assert_eq "$(head -n 1 <<<"$csv")" "$(head -n 1 "$STATE/runs/1/samples.csv")" \
    "report --csv header"
assert_eq "$(grep -c '' <<<"$csv")" "$(grep -c '' "$STATE/runs/1/samples.csv")" \
    "report --csv rows"
# a copied record, read without the daemon's help
mkdir "$T/copy" && cp "$STATE/runs/2/report.json" "$T/copy/"
"$STRESSCTL" --socket /nonexistent report "$T/copy/report.json" | grep -q '^Run 2' ||
    fail "report of a copied report.json"

out=$(ctl compare 1 "$T/copy/report.json")
grep -q 'run 1' <<<"$out" && grep -q 'run 2' <<<"$out" ||
    fail "compare does not head both runs: $out"
grep -q 'significant queue avg' <<<"$out" || fail "compare: no queue rows"
grep -q 'Histogram of significant_ops_pending' <<<"$out" || fail "compare: no histograms"
assert_eq "$(ctlj compare 1 2 | jq '.runs | length')" 2 "compare --json"
rc=0; ctl compare 1 >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 2 "compare of one run"

# librrd's rrd_graph (fontconfig, pango) leaves allocations LeakSanitizer
# reports under --enable-sanitizers; they are not ours, so leak checks are
# off for the graph calls only (errors are still caught).
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
ctl graph 2 -o "$T/g.png" >/dev/null || fail "graph exited $?"
[ "$(head -c 8 "$T/g.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "graph: no PNG signature"
if command -v file >/dev/null; then
	file "$T/g.png" | grep -q 'PNG image data' || fail "file: $(file "$T/g.png")"
fi
rc=0; ctl graph 2 -o /nonexistent/dir/g.png >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 1 "graph to an unwritable path"
# A copied run directory stands for its report.json in report and compare
# too, as in graph (it was "cannot read DIR/: Input/output error").
cp -r "$STATE/runs/2" "$T/rundir"
out=$("$STRESSCTL" --socket /nonexistent report "$T/rundir/") ||
    fail "report of a run directory: $out"
grep -q '^Run 2' <<<"$out" || fail "report of a run directory: $out"
(cd "$T" && "$STRESSCTL" --socket /nonexistent report --csv ./rundir) |
    head -n 1 | grep -q '^elapsed_s,' || fail "report --csv of ./rundir"
"$STRESSCTL" --socket /nonexistent compare "$T/rundir" "$STATE/runs/1/report.json" \
    >/dev/null || fail "compare of a run directory"
log "ok: runs, report, compare, watch and graph"
