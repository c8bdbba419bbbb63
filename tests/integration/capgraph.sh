#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The capacity graph has real axes: gnuplot draws it with the offered
# rate on a numbered log axis.  The script stressctl hands gnuplot is
# caught by a wrapper (STRESSCTL_GNUPLOT) and drawn again on gnuplot's
# text terminal, whose axis line must carry the numbers; every step of
# the record is a point of its own (a repeat too, never a mean); a
# label cannot break out of its string; no gnuplot, a clear error.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || fail "gnuplot is not installed"
FIX=$TOP_SRCDIR/tests/fixtures
cat >"$T/gp" <<WRAP
#!/bin/sh
tee "$T/script.gp" | gnuplot "\$@"
WRAP
chmod +x "$T/gp"
graph() { STRESSCTL_GNUPLOT=$T/gp "$STRESSCTL" --socket /nonexistent "$@"; }

out=$(graph report --graph "$T/a.png" "$FIX/capacity-alpha.json") ||
    fail "report --graph exited $?: $out"
assert_contains "$out" "graph: $T/a.png" "the graph named"
IFS=x read -r w h < <(png_size "$T/a.png")
assert_eq "$w" 800 "default width"
assert_num "$h" ">=" 300 "default height"
grep -q '^set logscale x 10$' "$T/script.gp" || fail "no log rate axis"

# Every step with a latency a point: the fixture's 9 steps, 1800 twice
# in dir 1; y its p99 over the bound (the search's 5 s in this older
# record), filled (7) when it kept up, open (6) when not.
steps=$(jq '[.steps[] | select(.latency_p99_ms != null)] | length' \
    "$FIX/capacity-alpha.json")
pts=$(grep -cE '^[0-9.e+-]+ [0-9.e+-]+ [67]$' "$T/script.gp")
assert_eq "$pts" "$steps" "points drawn (one per step)"
assert_eq "$(awk '/^e$/ { exit } /^1800 / { n++ } END { print n }' \
    "$T/script.gp")" 2 "the repeat at 1800 drawn twice"
want=$(jq -r '[.steps[] | select(.dir_index == 0)] | sort_by(.rate) |
    .[] | "\(.rate) \(.latency_p99_ms / 5000) \(if .kept_up then 7 else 6
    end)"' "$FIX/capacity-alpha.json" | awk '{ printf "%.6g %.6g %s\n",
    $1, ($2 < 0.001 ? 0.001 : $2), $3 }')
got=$(awk '/^e$/ { exit } /^[0-9]/' "$T/script.gp")
assert_eq "$got" "$want" "dir 1's points: rate, p99 / bound, kept up"
grep -q '^set logscale y 10$' "$T/script.gp" || fail "no log latency axis"
# A record of today's steps: the window's p99 over the step's own bound;
# a step that fell behind by its whole p99 is drawn by that, above the
# bound, whatever its window said.
jq '(.steps[] | select(.n == 1)) += {latency_bound_ms: 1000,
      steady: {latency_p99_ms: 3}} |
    (.steps[] | select(.n == 2)) += {latency_bound_ms: 100,
      steady: {latency_p99_ms: 50}}' "$FIX/capacity-alpha.json" >"$T/new.json"
graph report --graph "$T/n.png" "$T/new.json" >/dev/null ||
    fail "graph of a record with steady windows exited $?"
assert_eq "$(awk '/^1000 / { print; exit }' "$T/script.gp")" "1000 0.003 7" \
    "a kept-up step drawn by its window's p99 over its bound"
assert_eq "$(awk '/^2000 / { print; exit }' "$T/script.gp")" "2000 1.65 6" \
    "a step behind by its whole p99 drawn above the bound"

# gnuplot's own text rendering of the same script: the axis line under
# the plot holds the rate numbers, from below the lowest step (1,000) to
# above the highest (5,500).
sed 's/^set terminal .*/set terminal dumb size 120,40/' "$T/script.gp" |
    gnuplot -d >"$T/dumb.txt" 2>"$T/dumb.err" ||
    fail "gnuplot's dumb terminal failed: $(cat "$T/dumb.err")"
axis=$(grep -E '^ +100 +200 +500 +1000 +2000 +5000 +10000 *$' "$T/dumb.txt") ||
    fail "no numbered rate axis in gnuplot's rendering: $(cat "$T/dumb.txt")"
log "rate axis:$axis"
grep -q 'capacity 1800 updates/s' "$T/dumb.txt" ||
    fail "the capacity is not in the key"

# Size options, and a label made to break out of gnuplot's string.
jq '.dirs[0].label = "x\" `touch '"$T"'/pwned` @evil \\ é"' \
    "$FIX/capacity-beta.json" >"$T/odd.json"
graph graph "$T/odd.json" -o "$T/b.png" --width 640 --height 400 >/dev/null ||
    fail "graph of a record with an odd label exited $?"
assert_eq "$(png_size "$T/b.png")" 640x400 "--width/--height"
[ ! -e "$T/pwned" ] || fail "a label ran a command in gnuplot"
grep -q 'touch' "$T/script.gp" && ! grep -q '`' "$T/script.gp" ||
    fail "the label is not octal-escaped: $(grep title "$T/script.gp")"

# No gnuplot: exit 1, the package named, no file left behind.
rc=0
err=$(STRESSCTL_GNUPLOT=$T/nowhere "$STRESSCTL" --socket /nonexistent \
    report --graph "$T/c.png" "$FIX/capacity-alpha.json" 2>&1 >/dev/null) ||
    rc=$?
assert_eq "$rc" 1 "exit status without gnuplot"
assert_contains "$err" "apt-get install gnuplot-nox" "the package named"
[ -z "$(ls "$T" | grep '^c\.png')" ] || fail "a file was left: $(ls "$T")"
# A gnuplot that fails: its status and last message, no file left.
printf '#!/bin/sh\ncat >/dev/null; echo "warning: w" >&2\necho "line 1: boom" >&2; exit 3\n' \
    >"$T/bad"
chmod +x "$T/bad"
rc=0
err=$(STRESSCTL_GNUPLOT=$T/bad "$STRESSCTL" --socket /nonexistent \
    report --graph "$T/d.png" "$FIX/capacity-alpha.json" 2>&1 >/dev/null) ||
    rc=$?
assert_eq "$rc" 1 "exit status of a failed gnuplot"
assert_contains "$err" "$T/bad exited with status 3: line 1: boom" \
    "gnuplot's status and last message"
[ -z "$(ls "$T" | grep '^d\.png')" ] || fail "a file was left: $(ls "$T")"
log "ok: $pts points, numbered axis, quoting and errors"
