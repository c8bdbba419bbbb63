#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stressctl graph of several runs: the significant queue of each run
# against the seconds since its load started, from samples.csv, one line
# and legend entry per label, a title naming the load, integer axes; from
# run ids, report.json paths and copied run directories; a missing run
# refused by name; ':' and '\' in paths, labels and TMPDIR; sweep --graph.
# The PNG is checked by its signature and IHDR size, the legend by what
# librrd reports drawing (--json).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# librrd's rrd_graph (fontconfig, pango) leaves allocations LeakSanitizer
# reports under --enable-sanitizers; they are not ours.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

# Two short paced runs that differ in their sync mode.
for s in none data; do
	start_run --dir "$T/$s" --files 40 --max-updates 400 --update-time 2 \
	    --sample-interval 0.2 --sync "$s" --rra "$RRA" >/dev/null
	wait_run >/dev/null
done

out=$(ctlj graph 1 2 -o "$T/m.png" --width 640 --height 240) ||
    fail "graph of two runs exited $?"
assert_eq "$(png_size "$T/m.png")" 640x240 "PNG size"
if command -v file >/dev/null; then
	file "$T/m.png" | grep -q 'PNG image data, 640 x 240' ||
	    fail "file: $(file "$T/m.png")"
fi
assert_eq "$(jq '.runs | length' <<<"$out")" 2 "runs drawn"
# Same filesystem, same mount options, no label: "run N" each.
assert_eq "$(jq -c '[.lines[].label]' <<<"$out")" '["run 1","run 2"]' \
    "labels of unlabelled runs"
for l in "run 1" "run 2"; do
	assert_eq "$(jq --arg l "$l" '[.legend[] | select(. == $l)] |
	    length' <<<"$out")" 1 "librrd's legend entries for '$l'"
done
title=$(jq -r .title <<<"$out")
assert_contains "$title" "40 files" "title"
assert_contains "$title" "200 updates/s" "title"
assert_contains "$title" "sync none / data" "title"
# Integer gauge, integer axis: no SI prefix, whole-number ticks.
args=$(jq -r '.rrd_graph_args[]' <<<"$out")
grep -qx -- '--units-exponent=0' <<<"$args" || fail "no --units-exponent=0: $args"
grep -qE -- '^--y-grid=[1-9][0-9]*:[0-9]+$' <<<"$args" || fail "no integer --y-grid: $args"
# Elapsed seconds since the load started, whatever the clock said.
assert_num "$(jq '[.runs[].seconds] | max' <<<"$out")" '>=' 1 "seconds drawn"
assert_num "$(jq '[.runs[].seconds] | max' <<<"$out")" '<' 60 "seconds drawn"
text=$(ctl graph 1 2 -o "$T/t.png")
assert_contains "$text" "2 runs" "text output"

# Copied run directories, the daemon's own copies gone, one of them
# labelled: the label heads its line, the other is its filesystem (no
# other unlabelled run to tell apart), samples.csv is read beside
# report.json.
mkdir "$T/copy"
cp -r "$STATE/runs/1" "$T/copy/a"
cp -r "$STATE/runs/2" "$T/copy/b"
jq '.params.label = "ext3 data=writeback"' "$STATE/runs/1/report.json" \
    >"$T/copy/a/report.json"
fs=$(jq -r .target.fs_type "$T/copy/b/report.json")
mv "$STATE/runs" "$T/runs.moved"
out=$("$STRESSCTL" --socket /nonexistent --json graph "$T/copy/a" \
    "$T/copy/b/report.json" -o "$T/c.png") || fail "graph of copies exited $?"
png_size "$T/c.png" >/dev/null
assert_eq "$(jq -c '[.lines[].label]' <<<"$out")" \
    "[\"ext3 data=writeback\",\"$fs\"]" "labels of the copies"
assert_eq "$(jq '[.legend[] | select(. == "ext3 data=writeback")] | length' \
    <<<"$out")" 1 "legend entry of the label"
# Repeats under one label share a colour and a legend entry.
cp -r "$T/copy/a" "$T/copy/a2"
out=$("$STRESSCTL" --json graph "$T/copy/a" "$T/copy/a2" -o "$T/r.png")
assert_eq "$(jq '.lines | length' <<<"$out")" 1 "one line label for repeats"
assert_eq "$(jq '.lines[0].runs | length' <<<"$out")" 2 "its runs"
assert_eq "$(jq '[.legend[] | select(startswith("ext3"))] | length' \
    <<<"$out")" 1 "one legend entry for repeats"
# The same run copied from two hosts, unlabelled: told apart by host.
mkdir "$T/copy/b2"
jq '.host.name = "elsewhere"' "$T/copy/b/report.json" >"$T/copy/b2/report.json"
cp "$T/copy/b/samples.csv" "$T/copy/b2/"
out=$("$STRESSCTL" --json graph "$T/copy/b" "$T/copy/b2" -o "$T/h.png")
assert_eq "$(jq '.lines | length' <<<"$out")" 2 "lines of two hosts' copies"
assert_eq "$(jq -r '.lines[1].label' <<<"$out")" "run 2@elsewhere" \
    "label of the other host's copy"

# Refusals, named: a run the daemon does not have, a path that is not
# there, a copy without its samples.
mv "$T/runs.moved" "$STATE/runs"
rc=0; err=$(ctl graph 1 99 -o "$T/x.png" 2>&1) || rc=$?
assert_eq "$rc" 1 "graph with a missing run id"
assert_contains "$err" "99" "missing run's error"
[ ! -e "$T/x.png" ] || fail "a PNG was written despite the missing run"
rc=0; err=$(ctl graph 1 "$T/nowhere/report.json" -o "$T/x.png" 2>&1) || rc=$?
assert_eq "$rc" 1 "graph with a missing report.json"
assert_contains "$err" "$T/nowhere/report.json" "missing path's error"
mkdir "$T/bare" && cp "$T/copy/b/report.json" "$T/bare/"
mv "$STATE/runs/2/samples.csv" "$T/samples.moved"
rc=0; err=$(ctl graph 1 "$T/bare" -o "$T/x.png" 2>&1) || rc=$?
assert_eq "$rc" 1 "graph of a record without samples.csv"
assert_contains "$err" "samples.csv" "missing samples' error"
mv "$T/samples.moved" "$STATE/runs/2/samples.csv"

# The single-run graph is still the run's metrics.rrd picture.
out=$(ctlj graph 2 -o "$T/one.png")
assert_eq "$(png_size "$T/one.png")" 800x300 "single-run PNG size"
[ "$(jq -r .metrics_rrd <<<"$out")" != null ] || fail "single run: $out"

# sweep --graph: the picture of the runs it made.
ctl sweep --dir "$T/sa" --dir "$T/sb" --files 20 --max-updates 100 \
    --update-time 1 --sample-interval 0.2 --rra "$RRA" \
    --graph "$T/sweep.png" >"$T/sweep.out" 2>&1 ||
    fail "sweep --graph exited $?: $(cat "$T/sweep.out")"
png_size "$T/sweep.png" >/dev/null
grep -q "sweep.png" "$T/sweep.out" || fail "sweep does not name its graph"
# A run directory with ':' and '\' in its path, a label with '\', and a
# TMPDIR (where the overlay's temporary RRDs live) with both: librrd reads
# only "\:" in a graph argument, so '\' goes through as it is.
odd="$T/copy/a:b\\c/r2"
mkdir -p "$odd" "$T/tmp:x\\y"
cp -r "$T/copy/b/." "$odd/"
jq '.params.label = "C:\\data\\" | .params.max_updates = 40000 |
    .params.update_time = 1' "$T/copy/b/report.json" >"$odd/report.json"
out=$(ctlj graph "$odd" -o "$T/odd1.png") ||
    fail "single-run graph of $odd exited $?"
png_size "$T/odd1.png" >/dev/null
out=$(TMPDIR="$T/tmp:x\\y" ctlj graph "$odd" "$T/copy/a" -o "$T/odd.png") ||
    fail "overlay with $odd and TMPDIR $T/tmp:x\\y exited $?"
png_size "$T/odd.png" >/dev/null
assert_eq "$(jq '[.legend[] | select(. == "C:\\data\\")] | length' \
    <<<"$out")" 1 "legend entry of a label with '\\'"
# 40,000 updates/s in whole numbers, not "4e+04".
assert_contains "$(jq -r .title <<<"$out")" "40000 updates/s" "title of a fast run"
[ -z "$(ls -A "$T/tmp:x\\y")" ] || fail "overlay left $(ls -A "$T/tmp:x\\y")"

# A metrics path ending in '\' cannot be given to librrd: refused by name.
mkdir "$T/endbs"
jq '.files.metrics_rrd = "/nowhere/m.rrd\\"' "$T/copy/b/report.json" \
    >"$T/endbs/report.json"
cp "$T/copy/b/metrics.rrd" "$T/endbs/m.rrd\\"
rc=0; err=$(ctl graph "$T/endbs" -o "$T/x.png" 2>&1) || rc=$?
assert_eq "$rc" 1 "graph of a metrics path ending in '\\'"
assert_contains "$err" "$T/endbs/m.rrd\\: librrd cannot be given a path" \
    "its error"

log "ok: overlay of runs, labels, title, integer axis, copies, refusals, sweep"
