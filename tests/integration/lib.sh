# shellcheck shell=bash
# shellcheck disable=SC2015  # A && B || fail is meant: fail if either fails
# Shared setup for the integration tests, sourced by every
# tests/integration/NAME.sh right after its bash guard:
#
#	[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
#	. "$(dirname "$0")/lib.sh"
#
# It makes a private temp dir $T, starts a private stressd on $T/s.sock with
# state in $T/state (stderr and stdout to $T/stressd.log), waits until it
# answers `version`, and on exit stops it (SIGTERM, bounded wait, SIGKILL),
# prints the tail of its log when the test failed, and removes $T.
# Set LIB_NO_DAEMON=1 before sourcing to get $T without a daemon
# (start_daemon starts one later).
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip.

set -eEu
shopt -s inherit_errexit

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP_SRCDIR=${TOP_SRCDIR:-$(cd "$LIB_DIR/../.." && pwd)}
TEST_NAME=$(basename "$0" .sh)

# Timeouts (seconds), generous for a loaded 2-core machine.
CTL_TIMEOUT=${CTL_TIMEOUT:-60}		# any single stressctl call
WAIT_TIMEOUT=${WAIT_TIMEOUT:-180}	# `stressctl wait` for a run to end
READY_TIMEOUT=${READY_TIMEOUT:-10}	# daemon answering after start
STOP_TIMEOUT=${STOP_TIMEOUT:-10}	# daemon exit after SIGTERM at cleanup

# stressctl fits its text to 80 columns off a terminal; the tests read
# whole rows of its tables, so they get wide ones.  widths.sh checks the
# fitting itself (it unsets this).
export COLUMNS=1000

# Small RRA so that files stay tiny.
# shellcheck disable=SC2034  # used by the tests
RRA='RRA:AVERAGE:0.5:1:10'
START_TS=946710000			# default `start` knob
STEP=300				# default `step` knob

# ---------------------------------------------------------------- output

log() { printf '%s: %s\n' "$TEST_NAME" "$*"; }

fail() {
	printf 'FAIL: %s: %s\n' "$TEST_NAME" "$*" >&2
	exit 1
}

skip() {
	printf 'SKIP: %s: %s\n' "$TEST_NAME" "$*" >&2
	exit 77
}

# A command that fails under `set -e` says where before the test exits.
trap 'printf "FAIL: %s: line %s: command exited %s: %s\n" "$TEST_NAME" \
    "$LINENO" "$?" "$BASH_COMMAND" >&2' ERR

# ---------------------------------------------------------------- tools

for tool in jq rrdtool socat timeout mktemp; do
	command -v "$tool" >/dev/null 2>&1 ||
	    skip "$tool is not installed (apt-get install ${tool/timeout/coreutils})"
done

if [ -z "${STRESSD:-}" ] || [ -z "${STRESSCTL:-}" ]; then
	# Run by hand from a source tree: use the in-tree binaries if built.
	STRESSD=${STRESSD:-$TOP_SRCDIR/daemon/stressd}
	STRESSCTL=${STRESSCTL:-$TOP_SRCDIR/ctl/stressctl}
	[ -x "$STRESSD" ] || skip "$STRESSD not built (run make, or set STRESSD)"
	[ -x "$STRESSCTL" ] || skip "$STRESSCTL not built (run make, or set STRESSCTL)"
fi
# Given explicitly (make check): a missing binary is a failure, not a skip.
[ -x "$STRESSD" ] || fail "STRESSD=$STRESSD is not an executable"
[ -x "$STRESSCTL" ] || fail "STRESSCTL=$STRESSCTL is not an executable"
abspath() { printf '%s/%s\n' "$(cd "$(dirname "$1")" && pwd)" "$(basename "$1")"; }
STRESSD=$(abspath "$STRESSD")
STRESSCTL=$(abspath "$STRESSCTL")

# ---------------------------------------------------------------- temp dir

# A Unix socket path must fit in 108 bytes: fall back to /tmp for a long
# TMPDIR.
tmpbase=${TMPDIR:-/tmp}
[ "${#tmpbase}" -le 60 ] && [ -d "$tmpbase" ] || tmpbase=/tmp
T=$(mktemp -d "$tmpbase/stressd-it.XXXXXX")
SOCK=$T/s.sock
STATE=$T/state
DLOG=$T/stressd.log
DPID=
HELPER_PIDS=()
IMMUTABLE=()		# paths made chattr +i by a test; undone at exit
# Commands a test adds (CLEANUP_HOOKS+=(umount_all)): run at exit once the
# daemon is gone, before $T is removed, whether the test passed or not.
CLEANUP_HOOKS=()
# Work inside $T: nothing a test or a misbehaving daemon does with a
# relative path lands in the build tree.
cd "$T"

# True while PID exists and is not a zombie (an exited child of ours stays
# visible to kill -0 until it is reaped).
pid_alive() {
	local st
	kill -0 "$1" 2>/dev/null || return 1
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ "$st" != Z ] && [ "$st" != X ]
}

# wait_pid_exit PID SECONDS: true once PID is gone (or a zombie).
wait_pid_exit() {
	local pid=$1 deadline=$((SECONDS + $2))
	while pid_alive "$pid"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

cleanup() {
	local rc=$? pid p
	trap - ERR
	set +eE
	for pid in "${HELPER_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null
	done
	if [ -n "$DPID" ]; then
		kill -TERM "$DPID" 2>/dev/null
		if ! wait_pid_exit "$DPID" "$STOP_TIMEOUT"; then
			printf '%s: stressd did not exit %ss after SIGTERM; SIGKILL\n' \
			    "$TEST_NAME" "$STOP_TIMEOUT" >&2
			kill -KILL "$DPID" 2>/dev/null
		fi
		wait "$DPID" 2>/dev/null
	fi
	# Under ./configure --enable-sanitizers a report in the daemon's log
	# fails the test even when every assertion passed.
	if [ "$rc" -eq 0 ] && [ -f "$DLOG" ] && grep -q -E \
	    'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$DLOG"; then
		printf 'FAIL: %s: sanitizer report in the daemon log\n' \
		    "$TEST_NAME" >&2
		rc=1
	fi
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -f "$DLOG" ]; then
		printf -- '---- last 60 lines of %s\n' "$DLOG" >&2
		tail -n 60 "$DLOG" >&2
		printf -- '----\n' >&2
	fi
	for p in "${IMMUTABLE[@]}"; do
		chattr -i "$p" 2>/dev/null
	done
	for p in "${CLEANUP_HOOKS[@]}"; do
		eval "$p"
	done
	cd /
	if [ "${KEEP_TMP:-0}" = 1 ]; then
		printf '%s: keeping %s\n' "$TEST_NAME" "$T" >&2
	else
		rm -rf "$T"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- daemon

# start_daemon [EXTRA ARGS]: start stressd on $SOCK/$STATE, wait until it
# answers `version`; sets DPID.  A test may set the array STRESSD_WRAPPER
# (e.g. valgrind and its options) to run the daemon under; it must exec
# the daemon in the same process so that DPID is the daemon's pid.
# shellcheck disable=SC2120  # extra args are optional
start_daemon() {
	local deadline
	${STRESSD_WRAPPER[@]+"${STRESSD_WRAPPER[@]}"} "$STRESSD" \
	    --socket "$SOCK" --state-dir "$STATE" --log-level debug \
	    "$@" >>"$DLOG" 2>&1 &
	DPID=$!
	deadline=$((SECONDS + READY_TIMEOUT))
	until timeout -k 2 5 "$STRESSCTL" --socket "$SOCK" version \
	    >/dev/null 2>&1; do
		pid_alive "$DPID" ||
		    fail "stressd exited during startup (see log below)"
		[ "$SECONDS" -lt "$deadline" ] ||
		    fail "stressd did not answer 'version' within ${READY_TIMEOUT}s"
		sleep 0.1
	done
}

# start_metrics_daemon [EXTRA ARGS]: start_daemon with /metrics on a free
# loopback port; sets port and URL (skips the test without curl).
start_metrics_daemon() {
	command -v curl >/dev/null || skip "curl is not installed"
	start_daemon --metrics-listen 127.0.0.1:0 "$@"
	port=$(grep -oP 'serving metrics on .*\(port \K[0-9]+' "$DLOG" | tail -n 1)
	[ -n "$port" ] || fail "no metrics port in the daemon log"
	URL=http://127.0.0.1:$port
}

# stop_daemon SIGNAL SECONDS: signal the daemon, wait for it to exit, and
# set DAEMON_RC to its exit status (fails the test if it does not exit).
# shellcheck disable=SC2034  # DAEMON_RC is read by the tests
stop_daemon() {
	local sig=$1 secs=$2
	kill "-$sig" "$DPID"
	wait_pid_exit "$DPID" "$secs" ||
	    fail "stressd still running ${secs}s after SIG$sig"
	DAEMON_RC=0
	wait "$DPID" || DAEMON_RC=$?
	DPID=
}

# notify_listen SOCKET OUT: a NOTIFY_SOCKET as systemd would bind it; the
# datagrams stressd sends are appended to OUT (a helper, killed at exit).
notify_listen() {
	: >"$2"
	socat -u "UNIX-RECV:$1,unlink-early" "OPEN:$2,append" &
	HELPER_PIDS+=($!)
	for _ in $(seq 50); do [ -S "$1" ] && return 0; sleep 0.1; done
	fail "socat did not bind $1"
}

# ---------------------------------------------------------------- client

# ctl ARGS...: stressctl on our socket (bounded by CTL_TIMEOUT).
ctl() {
	timeout -k 5 "$CTL_TIMEOUT" "$STRESSCTL" --socket "$SOCK" "$@"
}

# ctlj ARGS...: the same with --json (prints the reply's result object).
ctlj() {
	timeout -k 5 "$CTL_TIMEOUT" "$STRESSCTL" --socket "$SOCK" --json "$@"
}

# memcg_v1: for the tests of memory caps, which stressd makes as a child
# of its cgroup v1 memory cgroup: skip without root, without a writable
# one, or inside a systemd service's cgroup (stressd refuses to leave a
# unit); sets CG, that cgroup's directory.
memcg_v1() {
	local line
	[ "$(id -u)" -eq 0 ] || skip "needs root to make a cgroup"
	line=$(grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup) ||
	    skip "no cgroup v1 memory controller"
	CG=/sys/fs/cgroup/memory${line##*:}
	CG=${CG%/}
	[ -w "$CG" ] && [ -f "$CG/memory.limit_in_bytes" ] ||
	    skip "the memory cgroup $CG is not writable here"
	! grep -q '\.service/*$' /proc/self/cgroup ||
	    skip "the test runs inside a systemd service's cgroup"
}

# asan_build: is stressd built with AddressSanitizer (--enable-sanitizers)?
asan_build() {
	ldd "$STRESSD" 2>/dev/null | grep -q libasan ||
	    grep -aq __asan_init "$STRESSD"
}

# other_user_setup: for tests that run stressctl as nobody (in group
# users): skip without root, setpriv or those accounts; make $T and a
# copy of stressctl ($T/stressctl) reachable for nobody (the build tree
# may sit under a private home directory); make $A, the allowed dir.
other_user_setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run stressctl as another user"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not found"
	getent passwd nobody >/dev/null && getent group users >/dev/null &&
	    getent group nogroup >/dev/null ||
	    skip "needs user nobody and groups users, nogroup"
	chmod 711 "$T"
	install -m 755 "$STRESSCTL" "$T/stressctl"
	A=$T/allowed
	mkdir -p "$A"
	# Sanitizer builds: nobody's stressctl cannot write logs into $T.
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=stderr"
}

# install_dest: `make install` of the build tree into $D=$T/dest (skip if
# the build dir has no Makefile); bmake ARGS runs make there, with a make
# of its own (not the jobserver or flags of the make running us).
install_dest() {
	B=$(cd "$(dirname "$STRESSD")/.." && pwd)	# the build directory
	[ -f "$B/Makefile" ] || skip "no Makefile in $B"
	D=$T/dest
	bmake install DESTDIR="$D" >"$T/install.log" 2>&1 ||
	    fail "make install: $(tail -5 "$T/install.log")"
}
bmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	    make -s --no-print-directory -C "$B" "$@"
}

# wait_flood OUT: tests/integration/flood.c, started in the background
# with its output in OUT, has made its connections (30 s at most).
wait_flood() {
	for _ in $(seq 300); do grep -q '^connected' "$1" && break; sleep 0.1; done
	grep -q '^connected' "$1" || fail "flood did not connect within 30 s"
	log "flood: $(head -n 1 "$1")"
}

# stats_p99 LABEL PAUSE: 20 `stressctl --json stats` calls PAUSE s apart,
# each within 10 s; prints the slowest in ms (the p99 of 20) and leaves
# the last reply in $T/s.json.
stats_p99() {
	local lat=() t0
	for _ in $(seq 20); do
		t0=$(date +%s%N)
		timeout -k 2 10 "$STRESSCTL" --socket "$SOCK" --json stats \
		    >"$T/s.json" || fail "$1: stats failed or took over 10 s"
		lat+=($((($(date +%s%N) - t0) / 1000000)))
		sleep "$2"
	done
	printf '%s\n' "${lat[@]}" | sort -n | tail -n 1
}

daemon_alive() {
	[ -n "$DPID" ] && pid_alive "$DPID" && ctl status >/dev/null
}

# assert_alive WHAT: the daemon survived WHAT and still answers status.
assert_alive() {
	daemon_alive || fail "daemon dead or not answering status after: $1"
}

# ---------------------------------------------------------------- JSON

# jget JSON PATH: the value at dotted PATH (e.g. error.code,
# rates.ops_per_update_overall); strings raw, missing as "null".
jget() {
	local out
	out=$(jq -r --arg p "$2" 'getpath($p | split("."))' <<<"$1" 2>&1) ||
	    fail "jget $2: not JSON: ${1:0:300}"
	printf '%s\n' "$out"
}

# jnum JSON PATH: like jget but the value must be a number.
jnum() {
	local out
	out=$(jq -r --arg p "$2" 'getpath($p | split(".")) |
	    if type == "number" then . else error("not a number") end' \
	    <<<"$1" 2>/dev/null) ||
	    fail "$2 is not a number in: ${1:0:400}"
	printf '%s\n' "$out"
}

# is_json TEXT: true when TEXT is exactly one JSON object.
is_json() {
	jq -e -s 'length == 1 and (.[0] | type == "object")' <<<"$1" \
	    >/dev/null 2>&1
}

assert_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
}

# assert_num A OP B MSG: numeric comparison with jq; A and B are numbers
# or jq arithmetic on numbers (e.g. "$ops / $items").
assert_num() {
	jq -n -e "($1) $2 ($3)" >/dev/null 2>&1 || fail "$4: expected $1 $2 $3"
}

assert_contains() {
	case $1 in
	*"$2"*) ;;
	*) fail "$3: '$2' not found in: ${1:0:500}" ;;
	esac
}

# check_invariants STATS_JSON LABEL: both conservation laws of DESIGN.md,
# and that of creates (README).
check_invariants() {
	local s=$1 what=$2 r
	r=$(jq -r '
	    def n(k): (.[k] | if type == "number" then . else
	        error("\(k) missing or not a number") end);
	    [n("offered"), n("enqueued"), n("dropped"), n("updates_completed"),
	     n("updates_failed"), n("total_operations_pending"), n("in_flight"),
	     n("discarded"), n("creates_queued"), n("creates_completed"),
	     n("creates_failed"), n("creates_pending"), n("creates_discarded")]
	    | if .[8] != .[9] + .[10] + .[11] + .[12] then
	        "creates_queued \(.[8]) != creates_completed \(.[9]) + creates_failed \(.[10]) + creates_pending \(.[11]) + creates_discarded \(.[12])"
	      elif .[0] != .[1] + .[2] then
	        "offered \(.[0]) != enqueued \(.[1]) + dropped \(.[2])"
	      elif .[1] != .[3] + .[4] + .[5] + .[6] + .[7] then
	        "enqueued \(.[1]) != updates_completed \(.[3]) + updates_failed \(.[4]) + total_operations_pending \(.[5]) + in_flight \(.[6]) + discarded \(.[7])"
	      else "ok" end' <<<"$s" 2>&1) || fail "$what: bad stats: $r: ${s:0:400}"
	[ "$r" = ok ] || fail "$what: invariant broken: $r"
}

# check_drained STATS_JSON LABEL: nothing pending or in flight.
check_drained() {
	assert_eq "$(jnum "$1" total_operations_pending)" 0 \
	    "$2: total_operations_pending"
	assert_eq "$(jnum "$1" significant_ops_pending)" 0 \
	    "$2: significant_ops_pending"
	assert_eq "$(jnum "$1" in_flight)" 0 "$2: in_flight"
}

# ---------------------------------------------------------------- runs

# start_run KNOB ARGS...: `stressctl --json start`, must succeed; prints
# the result ({"run_id","state","dir","log"}).
start_run() {
	local out rc=0
	out=$(ctlj start "$@" 2>"$T/ctl.err") || rc=$?
	[ "$rc" -eq 0 ] || fail "start $* exited $rc: $out $(cat "$T/ctl.err")"
	is_json "$out" || fail "start --json printed no JSON object: $out"
	[ "$(jget "$out" run_id)" != null ] || fail "start result has no run_id: $out"
	printf '%s\n' "$out"
}

# wait_run: `stressctl --json wait`, prints the final stats.
wait_run() {
	local out rc=0
	out=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj wait 2>"$T/ctl.err") || rc=$?
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
	    fail "run did not end within ${WAIT_TIMEOUT}s"
	[ "$rc" -eq 0 ] || fail "wait exited $rc: $out $(cat "$T/ctl.err")"
	is_json "$out" || fail "wait --json printed no JSON object: $out"
	printf '%s\n' "$out"
}

stats() {
	local out
	out=$(ctlj stats 2>"$T/ctl.err") ||
	    fail "stats failed: $out $(cat "$T/ctl.err")"
	is_json "$out" || fail "stats --json printed no JSON object: $out"
	printf '%s\n' "$out"
}

# wait_for_stats JQ_EXPR SECONDS: poll stats until JQ_EXPR is true; prints
# the matching snapshot.
wait_for_stats() {
	local s deadline=$((SECONDS + $2))
	while :; do
		s=$(stats)
		if jq -e "$1" <<<"$s" >/dev/null 2>&1; then
			printf '%s\n' "$s"
			return 0
		fi
		[ "$SECONDS" -lt "$deadline" ] ||
		    fail "stats never satisfied '$1' within $2 s; last: ${s:0:600}"
		sleep 0.1
	done
}

# ---------------------------------------------------------------- files

# rrd_path DIR N [FILES_PER_DIR]
rrd_path() {
	if [ "${3:-0}" -gt 0 ]; then
		printf '%s/%d/%d.rrd\n' "$1" $(($2 / $3)) "$2"
	else
		printf '%s/%d.rrd\n' "$1" "$2"
	fi
}

# rrd_scan [-m] DIR FILES [FILES_PER_DIR [START [STEP]]]: one `rrdtool
# lastupdate` per file through a single `rrdtool -`; prints per file
# "N COUNT VALUE" where COUNT = (last - START) / STEP and VALUE is ds0's last
# value. Fails on a missing or unreadable file or a timestamp off the grid;
# with -m a missing file counts as "N 0 -" (a run stopped before the file's
# create was due).
rrd_scan() {
	local missing_ok=0
	if [ "$1" = -m ]; then missing_ok=1; shift; fi
	local dir=$1 files=$2 fpd=${3:-0} start=${4:-$START_TS} step=${5:-$STEP}
	local n out
	out=$(for ((n = 0; n < files; n++)); do
		printf 'lastupdate %s\n' "$(rrd_path "$dir" "$n" "$fpd")"
	done | rrdtool - 2>&1) || true
	awk -v files="$files" -v start="$start" -v step="$step" \
	    -v missing_ok="$missing_ok" '
	    BEGIN { n = 0; bad = 0; seen = 0 }
	    /^ERROR:/ {
		if (missing_ok && /No such file or directory/) print n, 0, "-"
		else { print "ERROR file " n ": " $0; bad = 1 }
		n++; next }
	    /^OK / { if (!seen) { print "ERROR file " n ": no data"; bad = 1 }
		     seen = 0; n++; next }
	    /^ *[0-9]+:/ {
		ts = $1; sub(":", "", ts); ts += 0
		if (ts < start || (ts - start) % step != 0) {
			print "ERROR file " n ": timestamp " ts \
			    " not start + k*step"; bad = 1
		}
		print n, (ts - start) / step, $2; seen = 1; next }
	    END { if (n != files) { print "ERROR: rrdtool answered for " n \
		    " of " files " files"; bad = 1 }
		  exit bad }' <<<"$out" >"$T/scan.out" ||
	    fail "rrd_scan $dir: $(grep -m 5 ERROR "$T/scan.out")"
	cat "$T/scan.out"
}

# stresslog_blocks STRESS_LOG: its progress blocks (one per modulus
# updates offered, and a final one for a run that ended early).
stresslog_blocks() {
	grep -cE '^[0-9]+ samples stored, ' "$1" || true
}

# rrd_sum SCAN_OUTPUT: sum of the COUNT column.
rrd_sum() {
	awk '{ s += $2 } END { print s + 0 }' <<<"$1"
}

# rrd_info_get FILE KEY: one value of `rrdtool info` (quotes stripped).
rrd_info_get() {
	local v
	v=$(rrdtool info "$1" | awk -v k="$2" -F ' = ' '$1 == k { print $2 }')
	v=${v#\"}
	printf '%s\n' "${v%\"}"
}

# ---------------------------------------------------------------- raw socket

# rawsend [-n LINES] [-t SECONDS]: send stdin's bytes unchanged on one
# connection, without half-closing it, and print the reply lines; returns
# once LINES lines came (default 1), the daemon closed the connection, or
# SECONDS passed (default 15). Afterwards raw_closed tells whether the
# daemon closed the connection before that; to check that it closes after
# K replies, ask for more (-n K+1) so that rawsend waits for the close.
rawsend() {
	local n=1 t=15 opt OPTIND=1 in out pid deadline
	while getopts n:t: opt; do
		case $opt in
		n) n=$OPTARG ;;
		t) t=$OPTARG ;;
		*) fail "rawsend: bad option" ;;
		esac
	done
	in=$T/raw.in
	out=$T/raw.out
	cat >"$in"
	: >"$out"
	rm -f "$T/raw.closed"
	# The file is read in one go and written with one write(); shut-none
	# keeps our sending half open, so the connection only ends when the
	# daemon closes it or socat's -t expires.
	socat -b 262144 -t "$t" "OPEN:$in!!OPEN:$out,append" \
	    "UNIX-CONNECT:$SOCK,shut-none" 2>"$T/raw.err" &
	pid=$!
	deadline=$((SECONDS + t + 1))
	while :; do
		if ! pid_alive "$pid"; then
			wait "$pid" 2>/dev/null || true
			# socat ended before we stopped it: the daemon closed the
			# connection (or -t ran out).
			[ "$SECONDS" -ge "$((deadline - 1))" ] ||
			    : >"$T/raw.closed"
			break
		fi
		if [ "$(wc -l <"$out")" -ge "$n" ]; then
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			break
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			break
		fi
		sleep 0.02
	done
	cat "$out"
}

raw_closed() { [ -e "$T/raw.closed" ]; }

# build_tool NAME: build the test tool tests/integration/NAME.c as $T/NAME.
build_tool() {
	cc -O2 -o "$T/$1" "$TOP_SRCDIR/tests/integration/$1.c" ||
	    fail "cannot build $1.c"
}

# run_ctl EXPECTED_RC LABEL ARGS...: stressctl ARGS (no implied socket)
# must exit EXPECTED_RC; stdout+stderr in $out.
run_ctl() {
	local want=$1 what=$2 rc=0
	shift 2
	out=$(timeout -k 5 "$CTL_TIMEOUT" "$STRESSCTL" "$@" 2>&1) || rc=$?
	[ "$rc" -eq "$want" ] ||
	    fail "$what: stressctl $*: exit $rc, expected $want; output: ${out:0:800}"
}

# build_shim: build the test shim (hang_rrd_update.c: STRESSD_TEST_HANG_DIR,
# STRESSD_TEST_SLOW_US) and set PRELOAD to what LD_PRELOAD takes for it;
# skips without a C compiler.
build_shim() {
	command -v cc >/dev/null || skip "no C compiler to build the test shim"
	cc -shared -fPIC -o "$T/shim.so" \
	    "$TOP_SRCDIR/tests/integration/hang_rrd_update.c" -ldl ||
	    fail "cannot build the shim"
	# Under --enable-sanitizers the ASan runtime must come first.
	PRELOAD=$T/shim.so
	local asan
	asan=$(ldd "$STRESSD" | awk '/libasan/ { print $3 }')
	[ -z "$asan" ] || PRELOAD=$asan:$PRELOAD
}

# rawreq JSON_LINE: send one request line, print the one reply line; fails
# when no reply or a reply that is not a JSON object comes.
rawreq() {
	local r
	r=$(printf '%s\n' "$1" | rawsend -n 1)
	[ -n "$r" ] || fail "no reply to: ${1:0:200}"
	is_json "$r" || fail "reply is not one JSON object: ${r:0:300}"
	printf '%s\n' "$r"
}

# expect_error REPLY CODE [FIELD] LABEL: an ok:false reply with that code
# (and field).
expect_error() {
	local r=$1 code=$2 field='' what
	if [ $# -eq 4 ]; then field=$3; what=$4; else what=$3; fi
	assert_eq "$(jget "$r" ok)" false "$what: ok"
	assert_eq "$(jget "$r" error.code)" "$code" "$what: error.code"
	[ "$(jget "$r" error.message)" != null ] &&
	    [ -n "$(jget "$r" error.message)" ] ||
	    fail "$what: error without message: $r"
	if [ -n "$field" ]; then
		assert_eq "$(jget "$r" error.field)" "$field" "$what: error.field"
	fi
}

# Loop devices of a known speed (loop_fs, throttle_writes): loopdev.sh.
. "$LIB_DIR/loopdev.sh"

if [ "${LIB_NO_DAEMON:-0}" != 1 ]; then
	# shellcheck disable=SC2119
	start_daemon
fi

# png_size FILE: "WIDTHxHEIGHT" from the IHDR chunk, after checking the
# 8-byte signature and that IHDR is the first chunk (`file` may be absent).
png_size() {
	local hex
	hex=$(head -c 24 "$1" | od -An -tx1 | tr -d ' \n')
	[ "${hex:0:16}" = 89504e470d0a1a0a ] || fail "$1: no PNG signature: $hex"
	[ "${hex:24:8}" = 49484452 ] || fail "$1: first chunk is not IHDR: $hex"
	printf '%dx%d\n' "$((16#${hex:32:8}))" "$((16#${hex:40:8}))"
}

# rotation_run: a paced run of 20 stress.log blocks (20,000 updates over
# 6 s, modulus 1000, 200 files, one writer) for the rotation tests; prints
# its stress.log's path once two blocks (8 QS: lines) are in it.
rotation_run() {
	local run slog
	run=$(start_run --dir "$T/rrd" --files 200 --threads 1 --write-threads 1 \
	    --max-updates 20000 --modulus 1000 --update-time 6 --rra "$RRA")
	slog=$STATE/runs/$(jget "$run" run_id)/stress.log
	for _ in $(seq 100); do
		[ "$(grep -c '^QS:' "$slog" 2>/dev/null || true)" -ge 8 ] && break
		sleep 0.05
	done
	echo "$slog"
}

# on_pty COLS ARGS...: stressctl ARGS (on this daemon's socket) on a
# pseudo-terminal COLS columns wide, through script(1); its output with
# the carriage returns dropped.
on_pty() {
	local cols=$1
	shift
	script -qec "stty cols $cols rows 40; $(printf '%q ' "$STRESSCTL" \
	    --socket "$SOCK" "$@")" /dev/null | tr -d '\r'
}
