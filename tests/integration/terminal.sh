#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# What stressctl prints to a terminal cannot drive it: a record's text
# with escape sequences (a copied report.json from elsewhere) shows them
# as \xNN on a terminal, in reports and in errors; a pipe gets the bytes
# as they are; watch still moves its own cursor.  The terminal is a pty
# from ptyrun.c (not script(1): CI roots may have no usable /dev/ptmx).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

esc=$'\033'
build_tool ptyrun
# on_tty CMD...: CMD's output as seen on a terminal (stdout and stderr).
on_tty() {
	timeout -k 5 "$CTL_TIMEOUT" "$T/ptyrun" "$@" </dev/null
}

start_run --dir "$T/d" --files 20 --threads 2 --max-updates 400 \
    --update-time 1 --rra "$RRA" >/dev/null
wait_run >/dev/null
mkdir "$T/copy"
jq '.target.dir = "/x\u001b[31mEVIL\u001b]0;owned\u0007 \u009b31m"' \
    "$STATE/runs/1/report.json" >"$T/copy/report.json"

out=$(on_tty "$STRESSCTL" --socket /nonexistent report "$T/copy/report.json")
grep -q 'Run 1' <<<"$out" || fail "report on a terminal: no report: $out"
[[ "$out" != *"$esc"* ]] || fail "report on a terminal: a raw ESC reached it"
[[ "$out" != *$'\007'* ]] || fail "report on a terminal: a raw BEL reached it"
[[ "$out" != *$'\xc2\x9b'* ]] || fail "report on a terminal: a raw C1 CSI reached it"
assert_contains "$out" '/x\x1b[31mEVIL\x1b]0;owned\x07 \xc2\x9b31m' \
    "report on a terminal: the escaped dir"

# A pipe is not a terminal: the record's bytes as they are.
out=$("$STRESSCTL" --socket /nonexistent report "$T/copy/report.json")
[[ "$out" == *"$esc[31mEVIL"* ]] || fail "report to a pipe: bytes changed"

# An error quoting the user's text, on stderr.
out=$(on_tty "$STRESSCTL" --socket "$SOCK" start --profile "p${esc}[2J") || true
[[ "$out" != *"$esc"* ]] || fail "error on a terminal: a raw ESC reached it: $out"
assert_contains "$out" 'p\x1b[2J' "error on a terminal: the escaped profile name"

# watch draws on a terminal with its own cursor moves, untouched.
start_run --dir "$T/w" --files 20 --threads 2 --max-updates 3000 \
    --update-time 3 --sample-interval 0.2 --rra "$RRA" >/dev/null
out=$(on_tty "$STRESSCTL" --socket "$SOCK" watch --interval 0.3)
[[ "$out" == *"$esc[K"* ]] || fail "watch on a terminal: no erase-line sequence"
[[ "$out" == *"$esc[6A"* ]] || fail "watch on a terminal: no cursor-up sequence (6 lines)"
assert_alive "terminal"
