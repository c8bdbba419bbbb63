#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# `--sync drop-caches` without root and without touching anyone else's
# cache: an unprivileged daemon (nobody under setpriv, as stressd.service
# runs it, when the test is root; else the test's own user) writes back
# and evicts the run's own files before the load.  A first run makes the
# files, the test reads them into the page cache with a file beside them
# in the run's directory and one outside it; a second run with
# --sync drop-caches reuses them at a crawl (one update per 30 s).  Right
# after its setup mincore(2) (incore.c, built here) finds the run's files
# out of the cache and both other files still wholly in it; report.json's
# cold_cache says how many files, how many bytes were resident before
# and after, and the daemon log and `stressctl report` say it too.  A
# third run in a fresh directory that creates its files before the load
# has them evicted once created; a fourth, stopped as that begins, ends.
# A fifth reuses the fourth's 3,000 files, each eviction slowed to 2 ms
# by the test shim: a stop during that pass, before the run has started,
# ends it within a second, not after the whole pass.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || skip "no C compiler to build incore"
build_tool incore
FILES=20
BIG_RRA='RRA:AVERAGE:0.5:1:20000'	# 160 KiB a file: 40 pages

# resident FILE...: "RESIDENT TOTAL", the pages of all FILEs.
resident() {
	"$T/incore" "$@" | awk '{ r += $1; t += $2 } END { print r + 0, t + 0 }'
}
runfiles() { for ((i = 0; i < FILES; i++)); do printf '%s\n' "$A/run/$i.rrd"; done; }

# evictable DIR: does DIR's filesystem let clean pages go (tmpfs does not)?
evictable() {
	local res _
	head -c 1048576 /dev/urandom >"$1/probe"
	read -r res _ < <("$T/incore" -e "$1/probe")
	rm -f "$1/probe"
	[ "$res" -eq 0 ]
}
# The run's directory: in $T, or where /tmp is a tmpfs in /var/tmp.
A=$T/srv
mkdir -p "$A"
if ! evictable "$A"; then
	A=$(mktemp -d /var/tmp/stressd-coldcache.XXXXXX)
	CLEANUP_HOOKS+=('rm -rf "$A"')
	evictable "$A" || skip "neither $T nor /var/tmp lets go of evicted pages"
	log "$T keeps evicted pages (tmpfs?): the run's files are in $A"
fi

if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not found"
	getent passwd nobody >/dev/null && getent group nogroup >/dev/null ||
	    skip "needs user nobody and group nogroup"
	U=$(id -u nobody)
	G=$(getent group nogroup | cut -d: -f3)
	chown "$U:$G" "$T" "$A"
	chmod 711 "$T"
	install -m 755 "$STRESSD" "$T/stressd"
	STRESSD=$T/stressd
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=stderr"
	STRESSD_WRAPPER=(setpriv --reuid="$U" --regid="$G" --clear-groups
	    --inh-caps=-all --bounding-set=-all --)
fi
build_shim
STRESSD_WRAPPER=(env "LD_PRELOAD=$PRELOAD" STRESSD_TEST_SLOW_FADVISE_US=2000
    ${STRESSD_WRAPPER[@]+"${STRESSD_WRAPPER[@]}"})
printf 'allowed_dirs = %s\n' "$A" >"$T/stressd.conf"
start_daemon --config "$T/stressd.conf"
[ "$(stat -c %u "/proc/$DPID")" -ne 0 ] || fail "the daemon runs as root"

# ---- run 1 makes the files; the test reads them into the cache
start_run --dir "$A/run" --files "$FILES" --max-updates 40 --update-time 0 \
    --rra "$BIG_RRA" >/dev/null
assert_eq "$(jget "$(wait_run)" state)" "done" "run 1: state"
head -c 1048576 /dev/urandom >"$A/run/beside.dat"
head -c 1048576 /dev/urandom >"$A/outside.dat"
mapfile -t files < <(runfiles)
cat "${files[@]}" "$A/run/beside.dat" "$A/outside.dat" >/dev/null
read -r res tot < <(resident "${files[@]}")
assert_num "$res" '>=' "$tot * 0.9" "run files cached before run 2 ($res of $tot pages)"
bytes=$(stat -c %s "${files[@]}" | awk '{ s += $1 } END { print s }')

# ---- run 2 evicts them, at a crawl so that the load reads back little
start_run --dir "$A/run" --files "$FILES" --max-updates "$FILES" \
    --update-time 600 --threads 1 --write-threads 1 --rra "$BIG_RRA" \
    --sync drop-caches >/dev/null
wait_for_stats '.state == "running"' 30 >/dev/null
read -r res tot < <(resident "${files[@]}")
log "right after setup: $res of $tot pages of the run's files resident"
# At most two updates so far, a few pages each.
assert_num "$res" '<=' "$tot * 0.1" "run files resident after the eviction"
for f in "$A/run/beside.dat" "$A/outside.dat"; do
	read -r res tot < <(resident "$f")
	assert_eq "$res" "$tot" "$f: pages still cached (not the run's file)"
done
ctl stop >/dev/null
assert_eq "$(jget "$(wait_run)" state)" stopped "run 2: state"

# ---- the record: report.json and the daemon log
rep=$(cat "$STATE/runs/2/report.json")
cc=$(jq -c .cold_cache <<<"$rep")
log "report.json cold_cache: $cc"
assert_eq "$(jget "$cc" method)" evict "cold_cache.method"
assert_eq "$(jnum "$cc" files)" "$FILES" "cold_cache.files"
assert_eq "$(jnum "$cc" failed)" 0 "cold_cache.failed"
assert_eq "$(jnum "$cc" bytes)" "$bytes" "cold_cache.bytes"
assert_num "$(jnum "$cc" resident_before_bytes)" '>=' "$bytes * 0.9" \
    "cold_cache.resident_before_bytes"
assert_eq "$(jnum "$cc" resident_after_bytes)" 0 "cold_cache.resident_after_bytes"
assert_num "$(jnum "$cc" seconds)" '>=' 0 "cold_cache.seconds"
grep -q "run 2: sync drop-caches: wrote back and evicted $FILES files" "$DLOG" ||
    fail "no eviction line in the daemon log"
out=$(ctl report 2)
assert_contains "$out" "cold cache: $FILES files written back and evicted in" \
    "stressctl report 2"
assert_contains "$out" "MiB of them cached before, 0.0 MiB after" \
    "stressctl report 2"
# Run 1 had none.
assert_eq "$(jq -c .cold_cache "$STATE/runs/1/report.json")" null \
    "run 1: cold_cache"

# ---- run 3 in a fresh directory: its files are created before the load
# (--no-queue-creates), then evicted, then the load starts
start_run --dir "$A/fresh" --files "$FILES" --max-updates "$FILES" \
    --update-time 600 --threads 1 --write-threads 1 --rra "$BIG_RRA" \
    --no-queue-creates --sync drop-caches >/dev/null
wait_for_stats '.state == "running"' 60 >/dev/null
mapfile -t fresh < <(for ((i = 0; i < FILES; i++)); do
	printf '%s\n' "$A/fresh/$i.rrd"; done)
read -r res tot < <(resident "${fresh[@]}")
log "run 3, right after its creates: $res of $tot pages resident"
assert_num "$res" '<=' "$tot * 0.1" "created files resident after the eviction"
ctl stop >/dev/null
wait_run >/dev/null
cc=$(jq -c .cold_cache "$STATE/runs/3/report.json")
assert_eq "$(jnum "$cc" files)" "$FILES" "run 3: cold_cache.files"
assert_eq "$(jnum "$cc" missing)" 0 "run 3: cold_cache.missing"
assert_eq "$(jnum "$cc" resident_after_bytes)" 0 "run 3: cold_cache.resident_after_bytes"

# ---- run 4 stopped as its eviction begins: the run ends stopped, and
# the record says whether the pass was cut short (then fewer files)
MANY=3000
start_run --dir "$A/many" --files "$MANY" --max-updates "$MANY" \
    --update-time 600 --no-queue-creates --sync drop-caches \
    --rra "$RRA" >/dev/null
for _ in $(seq 600); do
	grep -q "run 4: files created; evicting them" "$DLOG" && break
	sleep 0.1
done
ctl stop >/dev/null
assert_eq "$(jget "$(wait_run)" state)" stopped "run 4: state"
cc=$(jq -c .cold_cache "$STATE/runs/4/report.json")
log "run 4, stopped: cold_cache $cc"
if [ "$(jget "$cc" cancelled)" = true ]; then
	assert_num "$(jnum "$cc" files)" '<' "$MANY" "run 4: files of a cut pass"
else
	assert_eq "$(jget "$cc" files)" "$MANY" "run 4: files of a whole pass"
fi

# ---- run 5: a stop during the eviction of reused files ends the pass
t0=$(date +%s.%N)
ctl start --dir "$A/many" --files "$MANY" --max-updates "$MANY" \
    --update-time 600 --sync drop-caches --rra "$RRA" >"$T/start5.out" 2>&1 &
spid=$!
HELPER_PIDS+=("$spid")
for _ in $(seq 300); do
	grep -q "run 5: dir .*held open" "$DLOG" && break
	sleep 0.1
done
sleep 0.5
ctl stop >/dev/null 2>&1 || true
t1=$(date +%s.%N)
wait "$spid" || true
t2=$(date +%s.%N)
log "run 5: stopped $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s \
after start; start answered $(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }') s later: $(cat "$T/start5.out")"
assert_contains "$(cat "$T/start5.out")" "stopped before it started" "run 5: start's answer"
assert_num "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')" '<' 2 \
    "run 5: seconds from the stop to the end of the eviction pass"
assert_alive "the cold-cache run"

# ---- run 6: SIGTERM during the eviction after the creates, with the
# drain given 1 s and each file's eviction 3 s: the daemon exits at the
# drain timeout, mid-pass, and the record still says how far it got.
stop_daemon TERM 30
STRESSD_WRAPPER=(env "LD_PRELOAD=$PRELOAD" STRESSD_TEST_SLOW_FADVISE_US=3000000
    "${STRESSD_WRAPPER[@]:3}")
start_daemon --config "$T/stressd.conf" --drain-timeout 1
start_run --dir "$A/late" --files 5 --max-updates 5 --update-time 600 \
    --no-queue-creates --sync drop-caches --rra "$RRA" >/dev/null
for _ in $(seq 300); do
	grep -q "run 6: files created; evicting them" "$DLOG" && break
	sleep 0.1
done
stop_daemon TERM 30
cc=$(jq -c .cold_cache "$STATE/runs/6/report.json")
log "run 6, the daemon gone mid-pass: cold_cache $cc"
[ "$cc" != null ] || fail "run 6: no cold_cache in the record of a pass cut short at exit"
assert_eq "$(jget "$cc" cancelled)" true "run 6: cold_cache.cancelled"
log "ok: the run's files evicted by an unprivileged daemon, others' kept"
