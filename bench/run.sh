#!/bin/bash
# stressd benchmark (issue 2, point 11).  Not a test: it measures and prints.
#
#   bench/run.sh BUILDDIR [--files N] [--write-threads W] [--updates M]
#                [--rounds R] [--dir D]
#
# (a) enqueue capacity and bytes per pending update, from BUILDDIR/bench/enqueue;
# (b) persisted updates/s of a flat-out run of a private stressd;
# (c) the raw librrd ceiling (BUILDDIR/bench/rawupdate) with the same files,
#     writer threads and values per call, so (b)/(c) is what the queue costs.
# Everything happens in a private directory under D (default /var/tmp),
# removed on exit together with the daemon.
set -u
set -o pipefail

usage() {
	echo "usage: $0 BUILDDIR [--files N] [--write-threads W] [--updates M] [--rounds R] [--dir D]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
case $1 in -h|--help) usage ;; esac
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "bench: no build dir '$1'" >&2; exit 2; }
shift

FILES=2000
WT=2
UPDATES=200000
ROUNDS=5
PARENT=/var/tmp
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--files)		FILES=$2 ;;
	--write-threads)	WT=$2 ;;
	--updates)		UPDATES=$2 ;;
	--rounds)		ROUNDS=$2 ;;
	--dir)			PARENT=$2 ;;
	*)			usage ;;
	esac
	shift 2
done
for v in "$FILES" "$WT" "$UPDATES" "$ROUNDS"; do
	case $v in ''|*[!0-9]*|0) echo "bench: '$v' is not a positive integer" >&2; exit 2 ;; esac
done

STRESSD=$BUILD/daemon/stressd
STRESSCTL=$BUILD/ctl/stressctl
ENQUEUE=$BUILD/bench/enqueue
RAWUPDATE=$BUILD/bench/rawupdate
for p in "$STRESSD" "$STRESSCTL" "$RAWUPDATE"; do
	[ -x "$p" ] || { echo "bench: $p is missing (run 'make bench')" >&2; exit 1; }
done
if ! command -v jq >/dev/null; then
	echo "bench: jq is required (apt-get install -y jq)" >&2
	exit 1
fi

mkdir -p "$PARENT" || exit 1
# A private directory under PARENT, so cleanup never touches anything else.
T=$(mktemp -d "$PARENT/stressd-bench.XXXXXX") || exit 1
DPID=
cleanup() {
	if [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; then
		kill -TERM "$DPID" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log() { echo "bench: $*" >&2; }
ctl() { "$STRESSCTL" --socket "$T/s.sock" --json "$@"; }

# ------------------------------------------------------------ (a) enqueue
ENQ_JSON=
ENQ_RATE=
ENQ_BYTES=
if [ -x "$ENQUEUE" ]; then
	log "enqueue capacity (null sink) ..."
	if ENQ_OUT=$("$ENQUEUE"); then
		ENQ_JSON=$(printf '%s\n' "$ENQ_OUT" | grep '^{' | tail -n 1)
	else
		log "$ENQUEUE failed (exit $?)"
	fi
	if [ -n "$ENQ_JSON" ]; then
		# The key names belong to bench/enqueue; pick them by meaning.
		ENQ_RATE=$(jq -r '[to_entries[] | select((.key | test("per_s|capacity|rate"; "i")) and (.value | type == "number"))][0].value // empty' <<<"$ENQ_JSON")
		ENQ_BYTES=$(jq -r '[to_entries[] | select((.key | test("bytes"; "i")) and (.value | type == "number"))][0].value // empty' <<<"$ENQ_JSON")
	fi
else
	log "$ENQUEUE not built: enqueue figures skipped (make bench builds it)"
fi

# ------------------------------------------------------------ (b), (c)
# ROUNDS rounds, each a flat-out stressd run then a raw run at the values
# per call that stressd reached, on two file sets that persist across the
# rounds (stressd's continue after rrd_last, as rawupdate's do).  One round
# times about 0.1 s at the defaults, where one scheduling hiccup moves a
# ratio by 10%: the median of the rounds is the figure.
"$STRESSD" --socket "$T/s.sock" --state-dir "$T/state" >"$T/stressd.out" 2>&1 &
DPID=$!
for _ in $(seq 100); do
	ctl version >/dev/null 2>&1 && break
	kill -0 "$DPID" 2>/dev/null || break
	sleep 0.1
done
if ! ctl version >/dev/null 2>&1; then
	log "stressd did not come up; its output:"
	cat "$T/stressd.out" >&2
	exit 1
fi

RATIOS=()
ROWS=()
for round in $(seq "$ROUNDS"); do
	log "round $round/$ROUNDS: stressd flat out, $FILES files, $WT write" \
	    "threads, $UPDATES updates ..."
	# Creates are made before the load (queue_creates off) so that, as
	# with rawupdate --create, file creation stays out of the timed rate.
	if ! ctl start --dir "$T/q" --files "$FILES" --write-threads "$WT" \
		--threads $((4 * WT)) --max-updates "$UPDATES" --update-time 0 \
		--zero-files 0 --modulus 100000 -D stresstest.queuecreates=false \
		>"$T/start.json"; then
		log "stressctl start failed:"
		cat "$T/start.json" >&2
		exit 1
	fi
	ctl wait >"$T/wait.json"
	WRC=$?
	S=$(jq -c . "$T/wait.json" 2>/dev/null) || S=
	if [ $WRC -ne 0 ] || [ -z "$S" ]; then
		log "stressctl wait failed (exit $WRC):"
		cat "$T/wait.json" >&2
		exit 1
	fi
	STATE=$(jq -r '.state // "?"' <<<"$S")
	SD_DONE=$(jq -r '.updates_completed' <<<"$S")
	SD_FAILED=$(jq -r '.updates_failed // 0' <<<"$S")
	SD_OPU=$(jq -r '.rates.ops_per_update_overall' <<<"$S")
	SD_RATE=$(jq -r '.rates.overall_dequeue.total' <<<"$S")
	if [ "$STATE" != "done" ] || [ "$SD_FAILED" != 0 ] ||
	    [ "$SD_DONE" != "$UPDATES" ]; then
		log "stressd run ended '$STATE' with $SD_DONE of $UPDATES" \
		    "updates completed, $SD_FAILED failed; final stats:"
		jq . <<<"$S" >&2
		exit 1
	fi
	VPC=$(jq -n --argjson x "$SD_OPU" '[($x + 0.5 | floor), 1] | max')

	log "round $round/$ROUNDS: raw rrd_update_r, $VPC values per call ..."
	CREATE=
	[ "$round" -eq 1 ] && CREATE=--create
	if ! RAW=$("$RAWUPDATE" --dir "$T/raw" --files "$FILES" --threads "$WT" \
		--values-per-call "$VPC" --updates "$UPDATES" $CREATE); then
		log "rawupdate failed"
		exit 1
	fi
	RAW_RATE=$(jq -r '.updates_per_s' <<<"$RAW")
	RATIO=$(jq -n --argjson a "$SD_RATE" --argjson b "$RAW_RATE" \
		'if $b > 0 then $a / $b else 0 end')
	RATIOS+=("$RATIO")
	ROWS+=("$(printf '%5s %12.0f %8.2f %12.0f %7.3f' "$round" "$SD_RATE" \
	    "$SD_OPU" "$RAW_RATE" "$RATIO")")
done
MEDIAN=$(printf '%s\n' "${RATIOS[@]}" | jq -s 'sort | .[(length - 1) / 2 | floor]')

# ------------------------------------------------------------ (d) report
FSTYPE=$(stat -f -c %T "$T")
MOUNT=$(findmnt -n -T "$T" -o SOURCE,FSTYPE,OPTIONS 2>/dev/null | tr -s " ")

# verdict VALUE OP TARGET: "ok", "MISSED" or "n/a"
verdict() {
	[ -n "$1" ] || { echo n/a; return; }
	jq -rn --argjson v "$1" --argjson t "$3" \
		"if \$v $2 \$t then \"ok\" else \"MISSED\" end"
}
num() { if [ -n "$1" ]; then LC_ALL=C printf "%.${2}f" "$1"; else echo n/a; fi; }

echo
echo "stressd benchmark"
echo "  host        $(uname -n), $(nproc) CPUs, $(uname -sr)"
echo "  date        $(date -Is)"
echo "  dir         $PARENT: $FSTYPE ($MOUNT)"
echo "  run         $FILES files, $WT write threads, $((4 * WT)) generator threads, $UPDATES updates, flat out, $ROUNDS rounds"
echo
printf '  %5s %12s %8s %12s %7s\n' round stressd/s ops/upd raw/s ratio
printf '  %s\n' "${ROWS[@]}"
echo
printf '  %-40s %18s  %-14s %s\n' figure measured target verdict
printf '  %-40s %18s  %-14s %s\n' "ratio stressd / raw, median of $ROUNDS" \
	"$(num "$MEDIAN" 3)" ">= 0.9" "$(verdict "$MEDIAN" '>=' 0.9)"
printf '  %-40s %18s  %-14s %s\n' "enqueue capacity, updates/s" "$(num "$ENQ_RATE" 0)" ">= 5,000,000" \
	"$(verdict "$ENQ_RATE" '>=' 5000000)"
printf '  %-40s %18s  %-14s %s\n' "bytes per pending update" "$(num "$ENQ_BYTES" 1)" "<= 32" \
	"$(verdict "$ENQ_BYTES" '<=' 32)"
echo
echo "  raw JSON:"
echo "    enqueue:   ${ENQ_JSON:-(not run)}"
echo "    rawupdate (last round): $RAW"
echo "    stressd (last round):   $(jq -c '{updates_completed, elapsed_s, ops_per_update_overall: .rates.ops_per_update_overall, overall_dequeue: .rates.overall_dequeue}' <<<"$S")"
