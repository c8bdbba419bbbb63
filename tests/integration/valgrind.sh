#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stressd under valgrind --leak-check=full --error-exitcode=1: a completed
# run, live stats/status/report/runs, a stop --no-drain, refused starts
# (busy, other layout), a client that leaves mid-wait, bad requests, the
# metrics endpoint, then SIGTERM mid-run.  The daemon must exit 0 with no
# memory error, nothing definitely, indirectly or possibly lost, and no
# descriptor open at exit that it did not inherit.  stressctl's record
# commands (report, runs, compare, graph) run under valgrind as well.
# tests/valgrind.supp holds the only suppressions: leaks inside librrd's
# graph code, pango and fontconfig, each checked to be theirs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null 2>&1 ||
    skip "valgrind is not installed (apt-get install valgrind)"
# ASan and valgrind cannot share a process: under --enable-sanitizers the
# sanitizers check the daemon instead.
if asan_build; then
	skip "$STRESSD is built with AddressSanitizer (--enable-sanitizers)"
fi

SUPP=$TOP_SRCDIR/tests/valgrind.supp
[ -r "$SUPP" ] || fail "no suppression file $SUPP"
VG_LOG=$T/valgrind.log
# shellcheck disable=SC2054  # the commas are valgrind's
VG=(valgrind --leak-check=full --error-exitcode=1
    --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible
    --num-callers=30 --suppressions="$SUPP")
# shellcheck disable=SC2034  # read by start_daemon
STRESSD_WRAPPER=("${VG[@]}" --track-fds=yes --log-file="$VG_LOG")
# Everything runs some 20 times slower.
READY_TIMEOUT=60
STOP_TIMEOUT=60

start_daemon --metrics-listen 127.0.0.1:0
grep -q 'Memcheck' "$VG_LOG" || fail "the daemon is not running under valgrind"

FILES=60
D=$T/rrd
common=(--dir "$D" --files "$FILES" --threads 2 --rra "$RRA")

# ---- 1. a completed run, with read-only commands while it runs
start_run "${common[@]}" --write-threads 2 --max-updates 3000 \
    --update-time 3 --sample-interval 0.2 >/dev/null
s=$(wait_for_stats '.state == "running" and .updates_completed > 0' 60)
check_invariants "$s" "run 1 live"
ctl status >/dev/null || fail "status during run 1"
ctlj report >/dev/null || fail "report during run 1"
ctlj runs >/dev/null || fail "runs during run 1"
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "run 1: state"
assert_eq "$(jnum "$s" updates_completed)" 3000 "run 1: updates_completed"
check_invariants "$s" "run 1 end"
ctlj report >/dev/null || fail "report after run 1"

# ---- 2. reused files, one writer flat out, stop --no-drain on a queue
start_run "${common[@]}" --write-threads 1 --max-updates 400000 \
    --update-time 0 >/dev/null
wait_for_stats '.state != "running" or .total_operations_pending > 0' 60 \
    >/dev/null
s=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj stop --no-drain) ||
    fail "stop --no-drain: $s"
assert_eq "$(jget "$s" state)" stopped "run 2: state after stop --no-drain"
check_invariants "$s" "run 2 after stop --no-drain"

# ---- 3. stressctl's record commands under valgrind (suppressions apply
# only to librrd's graph code and the font libraries under it)
vgctl() {
	local log=$T/vgctl.log rc=0
	"${VG[@]}" -q --error-exitcode=99 --log-file="$log" \
	    "$STRESSCTL" --socket "$SOCK" "$@" >/dev/null 2>"$T/vgctl.err" ||
	    rc=$?
	if [ "$rc" -eq 99 ] || [ -s "$log" ]; then
		cat "$log" >&2
		fail "valgrind found errors in stressctl $*"
	fi
	[ "$rc" -eq 0 ] || fail "stressctl $* exited $rc: $(cat "$T/vgctl.err")"
}
vgctl report 1
vgctl report --csv 1
vgctl --json report 2
vgctl runs
vgctl compare 1 2
vgctl stats
vgctl status
vgctl graph -o "$T/run1.png" 1
[ -s "$T/run1.png" ] || fail "graph wrote no PNG"
vgctl --json graph -o "$T/runs.png" 1 2
[ -s "$T/runs.png" ] || fail "graph of two runs wrote no PNG"

# ---- 4. refused starts, a waiter that goes away, bad requests
out=$(ctl start --dir "$D" --files "$FILES" --rra 'RRA:AVERAGE:0.5:1:11' \
    --max-updates 10 2>&1) && fail "start on files of another layout succeeded: $out" || true
assert_contains "$out" 'another layout' "start on files of another layout"
start_run "${common[@]}" --write-threads 2 --max-updates 200000 \
    --update-time 100 >/dev/null
wait_for_stats '.state == "running" and .updates_completed > 0' 60 >/dev/null
r=$(rawreq '{"cmd":"start","id":7,"args":{"dir":"'"$T/other"'","files":5}}')
expect_error "$r" busy "start during a run"
rc=0
timeout 2 "$STRESSCTL" --socket "$SOCK" wait >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 124 "wait killed after 2 s (the run goes on)"
expect_error "$(rawreq '{"cmd":"no_such","id":1}')" unknown_command \
    "unknown command"
expect_error "$(rawreq '{"cmd":"stats"')" parse_error "truncated JSON"
expect_error "$(rawreq '{"cmd":"report","args":{"run":"x"}}')" \
    bad_argument run "report of a run id of the wrong type"
printf '{"cmd":"sta' | socat -t 1 - "UNIX-CONNECT:$SOCK" >/dev/null 2>&1 ||
    true
out=$(head -c 70000 /dev/zero | tr '\0' x | rawsend -n 2 -t 20)
expect_error "$(head -n 1 <<<"$out")" too_long "70 KB line"
if command -v curl >/dev/null 2>&1; then
	port=$(grep -oP 'serving metrics on .*\(port \K[0-9]+' "$DLOG" |
	    tail -n 1)
	[ -n "$port" ] || fail "no metrics port in the daemon log"
	curl -sf "http://127.0.0.1:$port/metrics" >/dev/null ||
	    fail "GET /metrics"
	curl -s -o /dev/null "http://127.0.0.1:$port/nothing" || true
fi
s=$(stats)
check_invariants "$s" "run 3 live"

# ---- 5. SIGTERM mid-run: drain, record, exit 0 with a clean report
stop_daemon TERM 120

log "memcheck: $(grep -E 'ERROR SUMMARY|(definitely|indirectly|possibly) lost:|no leaks are possible' "$VG_LOG" |
    sed -e 's/^==[0-9]*== *//' | paste -s -d ';')"
bad() {
	sed -e 's/^/    /' "$VG_LOG" >&2
	fail "$1"
}
grep -q 'ERROR SUMMARY: 0 errors' "$VG_LOG" || bad "valgrind reported errors"
if ! grep -q 'no leaks are possible' "$VG_LOG"; then
	for k in 'definitely lost' 'indirectly lost' 'possibly lost'; do
		grep -qE "$k: 0 bytes in 0 blocks" "$VG_LOG" ||
		    bad "valgrind: $k is not 0"
	done
fi
# --track-fds: every descriptor open at exit must be one we handed over.
leaked=$(awk '/ Open [^:]* [0-9]+:/ { want = 1; what = $0; next }
	want && /<inherited from parent>/ { want = 0; next }
	want { print what; want = 0 }' "$VG_LOG")
[ -z "$leaked" ] || bad "descriptors open at exit: $leaked"
grep -q 'FILE DESCRIPTORS:' "$VG_LOG" || bad "no --track-fds report"
# 1 is also valgrind's --error-exitcode.
assert_eq "$DAEMON_RC" 0 "stressd exit status after SIGTERM under valgrind"
log "ok"
