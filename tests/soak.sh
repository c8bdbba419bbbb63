#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant; ls -l shows fd targets
# Soak test: back-to-back paced runs against a private stressd for
# DURATION, sampling the daemon's RSS and descriptor count every second and
# checking both conservation invariants on a stats snapshot every second.
# Fails (exit 1) if the daemon dies, an invariant breaks, RSS after the
# warm-up grows more than 5% over the warm-up's peak, or the descriptors
# held between runs grow.  Prints its figures at the end (also on failure
# or Ctrl-C).  Builds nothing.
#
#	tests/soak.sh DURATION		DURATION: seconds, or Ns, Nm, Nh, Nd
#
# `make check` runs it for 60 s (tests/integration/soak.sh).  For a day,
# from the build directory (or with STRESSD and STRESSCTL set):
#
#	nohup /path/to/source/tests/soak.sh 24h >soak-24h.log 2>&1 &
#
# It needs jq, rrdtool and socat, uses 3 x SOAK_FILES small RRD files and
# keeps only the last SOAK_KEEP_RECORDS run records (each ~1.7 MB), so the
# disk use stays under 100 MB whatever the duration; KEEP_TMP=1 keeps the
# temp dir.  Knobs (environment): SOAK_FILES (200), SOAK_RATE (updates/s,
# 2000), SOAK_RUN_S (seconds per run, 3), SOAK_WARMUP_RUNS (5),
# SOAK_KEEP_RECORDS (20).  Its own log
# grows by some 400 bytes a run (12 MB a day).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"

usage() {
	echo "usage: $0 DURATION   (seconds, or e.g. 30m, 24h)" >&2
	exit 2
}
[ $# -eq 1 ] || usage
[[ $1 =~ ^([0-9]{1,7})([smhd]?)$ ]] || usage
case ${BASH_REMATCH[2]} in
m) DURATION=$((10#${BASH_REMATCH[1]} * 60)) ;;
h) DURATION=$((10#${BASH_REMATCH[1]} * 3600)) ;;
d) DURATION=$((10#${BASH_REMATCH[1]} * 86400)) ;;
*) DURATION=$((10#${BASH_REMATCH[1]})) ;;
esac
[ "$DURATION" -ge 10 ] || usage

SOAK_FILES=${SOAK_FILES:-200}
SOAK_RATE=${SOAK_RATE:-2000}
SOAK_RUN_S=${SOAK_RUN_S:-3}
SOAK_KEEP_RECORDS=${SOAK_KEEP_RECORDS:-20}
RSS_LIMIT_PCT=5

# Run from a build directory: its programs, unless given.
if [ -z "${STRESSD:-}" ] && [ -x daemon/stressd ] && [ -x ctl/stressctl ]; then
	STRESSD=$PWD/daemon/stressd
	STRESSCTL=$PWD/ctl/stressctl
fi
LIB_NO_DAEMON=1
# shellcheck source=integration/lib.sh
. "$(dirname "$0")/integration/lib.sh"

# Each run allocates a few blocks of 0.8 to 1.6 MB (queue slabs, the
# sampler's buffer, librrd's buffer for metrics.rrd) and frees them at its
# end; stressd fixes glibc's mmap threshold so that they go back at free
# (with glibc's default, RSS stepped from 11.8 to 20.1 MB over five runs,
# then by 0.7 MB now and then, with no leak), so RSS growth here means
# memory kept.

# Warm-up.  RSS climbs over the first runs while the writer and generator
# threads get their malloc arenas and libevent's, json-c's and librrd's
# buffers reach their working size: with the fixed threshold it is flat
# from the second run on (measured over 60 runs).  So the warm-up is the
# first SOAK_WARMUP_RUNS runs (5) but at least a fifth of DURATION (at
# most 10 minutes: a day-long soak should judge nearly all of its runs);
# the baseline is the warm-up's peak, as RSS swings within each run.
SOAK_WARMUP_RUNS=${SOAK_WARMUP_RUNS:-5}
warmup_s=$((DURATION / 5))
[ "$warmup_s" -le 600 ] || warmup_s=600

# Under AddressSanitizer freed memory waits in a quarantine of up to 256 MB,
# so RSS says nothing about leaks (LeakSanitizer checks them at exit).
asan=0
if ldd "$STRESSD" 2>/dev/null | grep -q libasan ||
    grep -aq __asan_init "$STRESSD"; then
	asan=1
fi

# ---------------------------------------------------------------- figures

t0=$SECONDS
runs=0 runs_done=0 runs_stopped=0 runs_discarded=0 updates=0 checks=0
samples=0 warm=1 warm_runs=0 warm_t=0
rss_warm_max=0 rss_warm_end=0 rss_max=0 rss_after_max=0 rss_final=0
fd_min='' fd_max=0 fd_idle_base='' fd_idle_max=0 verdict=''

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%+.1f", (a - b) * 100 / b; else print "n/a" }'; }

figures() {
	local growth='n/a (the warm-up did not end)'
	[ "$warm" = 1 ] || growth=$(pct "$rss_after_max" "$rss_warm_max")%
	printf '%s\n' \
	    "---- soak figures" \
	    "duration             $((SECONDS - t0)) s of $DURATION s (warm-up: ${warm_runs} runs, ${warm_t} s)" \
	    "runs                 $runs started, $runs_done done, $runs_stopped stopped (drained), $runs_discarded stopped (--no-drain)" \
	    "updates written      $updates" \
	    "invariant checks     $checks stats snapshots (a broken one fails at once)" \
	    "samples              $samples (RSS and fds, one a second)" \
	    "RSS (kB)             warm-up end $rss_warm_end, warm-up peak $rss_warm_max, max $rss_max, max after warm-up $rss_after_max, final $rss_final" \
	    "RSS growth           $growth after warm-up over its peak (limit +$RSS_LIMIT_PCT%$([ "$asan" = 1 ] && echo ', not judged under ASan'))" \
	    "fds (sampled)        min ${fd_min:-n/a}, max $fd_max" \
	    "fds (between runs)   after warm-up ${fd_idle_base:-n/a}, max later $fd_idle_max" \
	    "result               ${verdict:-interrupted or failed (see above)}"
}

on_exit() {
	local rc=$?
	trap - ERR
	set +eE
	if [ "$DPID" != '' ] && pid_alive "$DPID"; then
		rss_final=$(rss_kb)
	fi
	figures >&2
	(exit "$rc")
	cleanup
}
trap on_exit EXIT

# ---------------------------------------------------------------- probes

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status"; }
fd_count() { find "/proc/$DPID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }

daemon_up() {
	pid_alive "$DPID" || fail "stressd died (see its log below)"
}

# sample: one RSS and fd reading and one checked stats snapshot; sets
# run_state.
sample() {
	local r f s
	daemon_up
	r=$(rss_kb)
	f=$(fd_count)
	samples=$((samples + 1))
	[ "$r" -le "$rss_max" ] || rss_max=$r
	if [ "$warm" = 1 ]; then
		[ "$r" -le "$rss_warm_max" ] || rss_warm_max=$r
		rss_warm_end=$r
	else
		[ "$r" -le "$rss_after_max" ] || rss_after_max=$r
	fi
	[ -n "$fd_min" ] && [ "$f" -ge "$fd_min" ] || fd_min=$f
	[ "$f" -le "$fd_max" ] || fd_max=$f
	s=$(stats)
	check_invariants "$s" "stats snapshot $samples (run $runs)"
	checks=$((checks + 1))
	run_state=$(jget "$s" state)
}

# idle_fds: descriptors between runs, once the daemon has closed our
# connections (it does on reading their EOF, a moment after we exit).
idle_fds() {
	local n best='' i
	for ((i = 0; i < 4; i++)); do
		n=$(fd_count)
		[ -n "$best" ] && [ "$n" -ge "$best" ] || best=$n
		sleep 0.05
	done
	printf '%s\n' "$best"
}

# prune: keep the newest SOAK_KEEP_RECORDS run records.
prune() {
	local id
	for id in $(find "$STATE/runs" -mindepth 1 -maxdepth 1 -printf '%f\n' |
	    grep -E '^[0-9]+$' | sort -n | head -n "-$SOAK_KEEP_RECORDS"); do
		rm -rf "${STATE:?}/runs/$id"
	done
}

# ---------------------------------------------------------------- soak

start_daemon --log-level info
log "soaking for $DURATION s: ${SOAK_RUN_S}-s runs of $((SOAK_RATE * SOAK_RUN_S)) updates over $SOAK_FILES files (3 dirs), pid $DPID"
[ "$asan" = 0 ] || log "AddressSanitizer build: RSS is reported, not judged"

deadline=$((t0 + DURATION))
tick=1000000	# microseconds between samples
# A run starts only if it can end by the deadline.
while [ $((SECONDS + SOAK_RUN_S)) -le "$deadline" ]; do
	runs=$((runs + 1))
	dir=$T/rrd/$((runs % 3))
	# Now and then new files: creates go through the queue again.
	[ $((runs % 15)) -ne 0 ] || rm -rf "$dir"
	extra=()
	[ $((runs % 4)) -ne 3 ] ||
	    extra=(--prioritize --max-insig-update-seconds 2)
	start_run --dir "$dir" --files "$SOAK_FILES" --threads 2 \
	    --write-threads 2 --max-updates $((SOAK_RATE * SOAK_RUN_S)) \
	    --update-time "$SOAK_RUN_S" --rra "$RRA" --sample-interval 0.5 \
	    "${extra[@]}" >/dev/null
	begin=$SECONDS
	run_end=$((${EPOCHREALTIME/./} + SOAK_RUN_S * 1000000))
	stop=''
	case $((runs % 10)) in
	0) stop=drain ;;
	5) stop=no-drain ;;
	esac
	kind=$stop
	next=${EPOCHREALTIME/./}
	while :; do
		sample
		case $run_state in
		running|preparing|stopping) ;;
		*) break ;;
		esac
		if [ -n "$stop" ] && [ $((SECONDS - begin)) -ge $((SOAK_RUN_S / 2)) ]; then
			if [ "$stop" = drain ]; then
				ctlj stop >/dev/null || fail "stop in run $runs"
			else
				ctlj stop --no-drain >/dev/null ||
				    fail "stop --no-drain in run $runs"
			fi
			stop=''
		fi
		next=$((next + tick))
		now=${EPOCHREALTIME/./}
		# Its pace is over: wait for the end rather than find it up to
		# a second late.
		[ "$next" -lt "$run_end" ] || break
		[ "$now" -ge "$next" ] || sleep "$(printf '0.%06d' $((next - now)))"
	done
	s=$(wait_run)
	check_invariants "$s" "final stats of run $runs"
	checks=$((checks + 1))
	updates=$((updates + $(jnum "$s" updates_completed)))
	case $(jget "$s" state) in
	done) runs_done=$((runs_done + 1)) ;;
	stopped)
		if [ "$kind" = no-drain ]; then
			runs_discarded=$((runs_discarded + 1))
		else
			runs_stopped=$((runs_stopped + 1))
		fi
		;;
	*) fail "run $runs ended $(jget "$s" state): ${s:0:400}" ;;
	esac
	prune
	ctlj runs >/dev/null || fail "runs after run $runs"
	f=$(idle_fds)
	if [ "$warm" = 1 ]; then
		if [ "$runs" -ge "$SOAK_WARMUP_RUNS" ] &&
		    [ $((SECONDS - t0)) -ge "$warmup_s" ]; then
			warm=0
			warm_runs=$runs
			warm_t=$((SECONDS - t0))
			fd_idle_base=$f
			log "warm-up over after $runs runs, $warm_t s: RSS peak $rss_warm_max kB, $f descriptors between runs"
		fi
	else
		[ "$f" -le "$fd_idle_max" ] || fd_idle_max=$f
		[ "$f" -le "$fd_idle_base" ] ||
		    fail "descriptors between runs grew: $f after run $runs, $fd_idle_base after the warm-up: $(ls -l "/proc/$DPID/fd" | tail -n +2)"
	fi
done

daemon_up
rss_final=$(rss_kb)
[ "$warm" = 0 ] || fail "the warm-up ($SOAK_WARMUP_RUNS runs, $warmup_s s) did not end within $DURATION s; give a longer DURATION"
growth=$(pct "$rss_after_max" "$rss_warm_max")
if [ "$asan" = 0 ] && ! awk -v g="$growth" -v l="$RSS_LIMIT_PCT" \
    'BEGIN { exit !(g <= l) }'; then
	fail "RSS grew $growth% after the warm-up (limit $RSS_LIMIT_PCT%)"
fi
verdict=pass
