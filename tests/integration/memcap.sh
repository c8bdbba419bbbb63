#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# `stressd --memory-max`: the cap is real.  Refusals first, each exit 2
# with a message naming the option, before the socket or the state
# directory exists: a cap below the 64 MiB floor, no size, the same in
# stressd.conf's memory_max, as nobody, on a read-only cgroupfs.  Then a
# daemon with --memory-max 96M: it and every thread sit in
# memory:<its cgroup>/stressd-<pid> with memory.limit_in_bytes 96 MiB;
# status and report.json's "memory" say so; a run whose queue_memory_max
# leaves less than the floor is refused with the numbers.  A run of 500
# files (the default RRAs: 141 MB, more than the cap) leaves the cgroup's
# peak at or under the cap but charged with the page cache (so the
# daemon's I/O was in it), and mincore(2) finds less of the files
# resident than the cap: they did not fit; 141 MB fit in MemAvailable but
# not under the cap, so no page_cache warning.  At exit the cgroup is
# gone.  kif-study --memory refuses a bad size and --socket, and its
# private stressd (a tiny study) records the cap in every run.  cgroup v1
# (this machine and CI); v2 hosts skip.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
memcg_v1
command -v cc >/dev/null || skip "no C compiler to build incore"
build_tool incore
# The cap, and files of the default RRAs (282 KB each) that exceed it.
# An AddressSanitizer build's shadow memory alone passes 96 MiB.
CAPM=96
FILES=500
if asan_build; then CAPM=512; FILES=2400; fi
CAP=$((CAPM * 1024 * 1024))
QM=$((CAPM - 56))	# queue_memory_max + the 64 MiB floor > the cap
# Not under systemd, whatever the shell that runs make check inherited.
STRESSD_WRAPPER=(env -u INVOCATION_ID)

# refused EXPECT ARGS...: stressd ARGS must exit 2 saying EXPECT, with no
# socket and no state directory made.
refused() {
	local want=$1 rc=0 out
	shift
	out=$(env -u INVOCATION_ID timeout 10 "$STRESSD" --socket "$T/r.sock" \
	    --state-dir "$T/rstate" "$@" 2>&1) || rc=$?
	[ "$rc" -eq 2 ] || fail "stressd $*: exit $rc, expected 2: $out"
	assert_contains "$out" "$want" "stressd $*"
	[ ! -e "$T/r.sock" ] && [ ! -e "$T/rstate" ] ||
	    fail "stressd $*: made its socket or state before refusing"
	! compgen -G "$CG/stressd-*" >/dev/null ||
	    fail "stressd $*: left a cgroup behind"
}
refused "--memory-max" --memory-max 32M
refused "64 MiB" --memory-max 32M
refused "--memory-max: '12X'" --memory-max 12X
printf 'memory_max = 32M\n' >"$T/small.conf"
refused "memory_max" --config "$T/small.conf"
# Not root: not permitted (a copy of stressd that nobody can reach).
if command -v setpriv >/dev/null && getent passwd nobody >/dev/null; then
	chmod 711 "$T"
	install -m 755 "$STRESSD" "$T/stressd"
	rc=0
	out=$(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" \
	    --clear-groups --inh-caps=-all --bounding-set=-all -- \
	    env -u INVOCATION_ID "$T/stressd" --socket "$T/r.sock" \
	    --state-dir "$T/rstate" --memory-max 96M 2>&1) || rc=$?
	assert_eq "$rc" 2 "stressd --memory-max as nobody: $out"
	assert_contains "$out" "--memory-max: cannot create the cgroup" \
	    "as nobody"
	assert_contains "$out" "not permitted" "as nobody"
	[ ! -e "$T/r.sock" ] && [ ! -e "$T/rstate" ] ||
	    fail "stressd as nobody made its socket or state before refusing"
fi
# A read-only cgroupfs (remounted so in a mount namespace of its own).
if command -v unshare >/dev/null &&
    unshare -m --propagation private true 2>/dev/null; then
	rc=0
	# shellcheck disable=SC2016  # sh expands them
	out=$(unshare -m --propagation private sh -c 'mount -o \
	    remount,bind,ro "$1" && exec env -u INVOCATION_ID "$2" --socket \
	    "$3/r.sock" --state-dir "$3/rstate" --memory-max 96M' sh \
	    "${CG%%/memory*}/memory" "$STRESSD" "$T" 2>&1) || rc=$?
	assert_eq "$rc" 2 "stressd --memory-max on a read-only cgroupfs: $out"
	assert_contains "$out" "read-only" "a read-only cgroupfs"
	assert_contains "$out" "--memory-max" "a read-only cgroupfs"
fi

# ---- a daemon under a 96 MiB cap (512 MiB under ASan)
start_daemon --memory-max "${CAPM}M"
OWN=$CG/stressd-$DPID
# shellcheck disable=SC2016  # expanded when the hook runs
CLEANUP_HOOKS+=('[ ! -d "$OWN" ] || rmdir "$OWN"')
[ -d "$OWN" ] || fail "no cgroup $OWN"
assert_eq "$(cat "$OWN/memory.limit_in_bytes")" "$CAP" "memory.limit_in_bytes"
for task in /proc/"$DPID"/task/*; do
	grep -Eq "^[0-9]+:([^:]*,)?memory(,[^:]*)?:.*/stressd-$DPID\$" \
	    "$task/cgroup" || fail "thread $task is not in $OWN: $(cat "$task/cgroup")"
done
st=$(ctlj status)
assert_eq "$(jget "$st" memory.limit_bytes)" "$CAP" "status memory.limit_bytes"
assert_contains "$(jget "$st" memory.source)" "stressd --memory-max" \
    "status memory.source"

# queue_memory_max 40 + the 64 MiB floor > 96 MiB: refused, with numbers.
rc=0
out=$(ctl start --dir "$T/q" --files 10 --max-updates 10 --rra "$RRA" \
    --queue-memory-max "$QM" 2>&1) || rc=$?
[ "$rc" -eq 1 ] ||
    fail "queue_memory_max $QM under a $CAPM MiB cap: exit $rc: $out"
for w in queue_memory_max "$QM MiB" "$CAPM MiB" "64 MiB"; do
	assert_contains "$out" "$w" "queue_memory_max refusal"
done
[ ! -e "$T/q" ] || fail "the refused run made its directory"

# ---- 500 files of the default RRAs: 141 MB, more than the cap
t0=$SECONDS
id=$(jget "$(start_run --dir "$T/big" --files "$FILES" --max-updates $((2 * FILES)) \
    --update-time 0)" run_id)
fin=$(wait_run)
assert_eq "$(jget "$fin" state)" "done" "the run's state"
log "$FILES files under a $CAPM MiB cap: $((SECONDS - t0)) s"
peak=$(cat "$OWN/memory.max_usage_in_bytes")
log "cgroup peak $((peak / 1048576)) MiB of $((CAP / 1048576)) MiB"
assert_num "$peak" "<=" "$CAP" "memory.max_usage_in_bytes"
assert_num "$peak" ">=" "$CAP / 2" "memory.max_usage_in_bytes (was the page \
cache charged to the daemon's cgroup?)"
files=()
for ((i = 0; i < FILES; i++)); do files+=("$T/big/$i.rrd"); done
read -r res tot < <("$T/incore" "${files[@]}" |
    awk '{ r += $1; t += $2 } END { print r + 0, t + 0 }')
page=$(getconf PAGESIZE)
log "resident: $((res * page / 1048576)) of $((tot * page / 1048576)) MiB"
assert_num "$tot * $page" ">" "$CAP" "the run's files' size"
assert_num "$res * $page" "<" "$CAP" "the run's files in the page cache"

rep=$(cat "$STATE/runs/$id/report.json")
# 141 MB of files fit in MemAvailable, not under the cap: no page_cache
# warning.
jq -e '[.warnings[]?.code] | index("page_cache") == null' <<<"$rep" \
    >/dev/null || fail "a page_cache warning under the cap: $(jq -c \
    .warnings <<<"$rep")"
assert_eq "$(jget "$rep" memory.limit_bytes)" "$CAP" "report.json memory"
assert_contains "$(jget "$rep" memory.source)" "stressd-$DPID" \
    "report.json memory.source"
assert_contains "$(ctl report "$id")" "memory cap: $CAPM MiB" \
    "stressctl report"

# ---- at exit: back in the old cgroup, ours removed
pid=$DPID
stop_daemon TERM 30
assert_eq "$DAEMON_RC" 0 "the daemon's exit status"
[ ! -d "$CG/stressd-$pid" ] || fail "$CG/stressd-$pid is still there"

# ---- kif-study --memory: its private stressd gets --memory-max
KIF=$TOP_SRCDIR/contrib/kif-study
kif() {
	env -u INVOCATION_ID STRESSD="$STRESSD" STRESSCTL="$STRESSCTL" \
	    timeout -k 10 120 "$KIF" --files 30 --rra "$RRA" "$@"
}
for bad in "32M:below the 64M" "12X:not a size" \
    "96M --socket $SOCK:MemoryMax=96M"; do
	rc=0
	# shellcheck disable=SC2086  # the options split at blanks
	out=$(kif --dir "$T/kif" --memory ${bad%%:*} 2>&1) || rc=$?
	assert_eq "$rc" 2 "kif-study --memory ${bad%%:*}: $out"
	assert_contains "$out" "${bad#*:}" "kif-study --memory ${bad%%:*}"
	[ ! -e "$T/kif" ] || fail "kif-study --memory ${bad%%:*} made $T/kif"
done
rc=0
kif --dir "$T/kif" --memory "${CAPM}M" --state-dir "$T/kst" >"$T/kif.out" 2>&1 ||
    rc=$?
if [ "$rc" -eq 2 ] && grep -q '^kif-study: missing:' "$T/kif.out"; then
	log "kif-study cannot run here, not checked: $(tr '\n' ' ' <"$T/kif.out")"
else
	assert_eq "$rc" 0 "kif-study --memory ${CAPM}M: $(tail -n 20 "$T/kif.out")"
	n=0
	for rep in "$T"/kst/runs/*/report.json; do
		assert_eq "$(jq -r .memory.limit_bytes "$rep")" "$CAP" "$rep memory"
		assert_contains "$(jq -r .memory.source "$rep")" \
		    "stressd --memory-max" "$rep memory.source"
		n=$((n + 1))
	done
	assert_eq "$n" 3 "kif-study's runs"
	# Another test's stressd may hold one of its own: only a cgroup
	# whose stressd has exited is left over.
	for g in $(compgen -G "$CG/stressd-*" || true); do
		pid_alive "${g##*-}" ||
		    fail "kif-study's stressd left a cgroup: $g"
	done
fi
log "ok"
