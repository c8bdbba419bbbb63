#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Confinement by what is opened, not by a string (issue 13, hole 2): with
# allowed_dirs set, a run's files are reached through the directory the
# check approved, held open for the whole run.
#  (a) a run file that is a symlink to a same-layout RRD outside the
#      allowed tree is refused (errors_by_kind.denied), never followed:
#      its target's last update does not move;
#  (b) the run directory renamed away and replaced by a symlink to a
#      directory outside, right after `start` returned (during the creates,
#      and once during the load on a mirror of the files): nothing outside
#      is created or written, the writes go on into the held directory and
#      the run's counters add up.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

A=$T/allowed
OUT=$T/outside
mkdir -p "$A" "$OUT"
printf 'allowed_dirs = %s\n' "$A" >"$T/stressd.conf"
start_daemon --config "$T/stressd.conf"

# lastupdates DIR: "name last" for every .rrd below DIR, sorted.
lastupdates() {
	local f
	find "$1" -name '*.rrd' -type f | sort | while read -r f; do
		printf '%s %s\n' "${f#"$1"/}" "$(rrdtool last "$f")"
	done
}

# ---- (a) a run file that is a symlink leads nowhere
# A same-layout file, made by a run and moved out of the allowed tree.
start_run --dir "$A/seed" --files 1 --max-updates 5 --update-time 0 \
    --rra "$RRA" >/dev/null
s=$(wait_run)
assert_eq "$(jnum "$s" updates_completed)" 5 "seed run: updates_completed"
mv "$A/seed/0.rrd" "$OUT/victim.rrd"
before=$(rrdtool lastupdate "$OUT/victim.rrd")
mkdir "$A/a"
ln -s "$OUT/victim.rrd" "$A/a/1.rrd"
start_run --dir "$A/a" --files 4 --threads 1 --max-updates 400 \
    --update-time 0 --rra "$RRA" >/dev/null
s=$(wait_run)
assert_eq "$(rrdtool lastupdate "$OUT/victim.rrd")" "$before" \
    "(a) the symlink's target outside the allowed tree was written"
[ -L "$A/a/1.rrd" ] || fail "(a) the symlinked run file was replaced"
assert_num "$(jnum "$s" errors_by_kind.denied)" '>' 0 "(a) errors_by_kind.denied"
assert_eq "$(jnum "$s" errors_by_kind.denied)" "$(jnum "$s" errors)" \
    "(a) every error is denied ($(jq -c .errors_by_kind <<<"$s"))"
assert_num "$(jnum "$s" updates_failed)" '>' 0 "(a) updates_failed"
assert_eq "$(($(jnum "$s" updates_completed) + $(jnum "$s" updates_failed)))" \
    400 "(a) updates_completed + updates_failed"
check_invariants "$s" "(a)"
check_drained "$s" "(a)"
# The other three files were created and written in the allowed tree.
assert_eq "$(find "$A/a" -name '*.rrd' -type f | wc -l)" 3 "(a) regular files"
done_on_disk=0
for n in 0 2 3; do
	done_on_disk=$((done_on_disk + ($(rrdtool last "$A/a/$n.rrd") - START_TS) / STEP))
done
assert_eq "$done_on_disk" "$(jnum "$s" updates_completed)" \
    "(a) updates on disk in the allowed tree"
assert_contains "$(jq -r '.error_messages[]' <<<"$s")" "symbolic link" \
    "(a) error_messages"

# swap DIR TARGET: rename DIR away (to DIR.away) and put a symlink to
# TARGET in its place, as fast as the shell can.
swap() {
	mv "$1" "$1.away" && ln -s "$2" "$1"
}

# ---- (b1) swapped right after start returned, while the files are created
# queue_creates: each file is created at its first update, so nearly all
# creates come after the swap.
FILES=300
U=3000
mkdir "$OUT/b1"
start_run --dir "$A/b1" --files "$FILES" --threads 2 --write-threads 2 \
    --max-updates "$U" --update-time 3 --queue-creates \
    --rra "$RRA" >/dev/null
swap "$A/b1" "$OUT/b1"
s=$(wait_run)
assert_eq "$(find "$OUT/b1" -mindepth 1 | wc -l)" 0 \
    "(b1) entries created outside the allowed tree"
assert_eq "$(jget "$s" state)" done "(b1) state"
assert_eq "$(jnum "$s" updates_completed)" "$U" "(b1) updates_completed"
assert_eq "$(jnum "$s" errors)" 0 "(b1) errors"
assert_eq "$(jnum "$s" creates_completed)" "$FILES" "(b1) creates_completed"
check_invariants "$s" "(b1)"
check_drained "$s" "(b1)"
# Everything landed in the held directory, now called b1.away.
scan=$(rrd_scan "$A/b1.away" "$FILES")
assert_eq "$(rrd_sum "$scan")" "$U" "(b1) updates on disk in the held dir"

# ---- (b2) swapped during the load, for a mirror of the files outside
FILES=200
U=4000
start_run --dir "$A/b2" --files "$FILES" --threads 2 --write-threads 2 \
    --max-updates "$U" --update-time 6 --rra "$RRA" >/dev/null
wait_for_stats '.updates_completed > 400' 30 >/dev/null
cp -a "$A/b2" "$OUT/b2"
mirror=$(lastupdates "$OUT/b2")
swap "$A/b2" "$OUT/b2"
s=$(stats)
assert_eq "$(jget "$s" state)" running "(b2) the swap came during the load"
s=$(wait_run)
assert_eq "$(lastupdates "$OUT/b2")" "$mirror" \
    "(b2) files outside the allowed tree were written or created"
assert_eq "$(jget "$s" state)" done "(b2) state"
assert_eq "$(jnum "$s" updates_completed)" "$U" "(b2) updates_completed"
assert_eq "$(jnum "$s" errors)" 0 "(b2) errors"
check_invariants "$s" "(b2)"
check_drained "$s" "(b2)"
scan=$(rrd_scan "$A/b2.away" "$FILES")
assert_eq "$(rrd_sum "$scan")" "$U" "(b2) updates on disk in the held dir"

assert_alive "the confinement tests"
log "PASS"
