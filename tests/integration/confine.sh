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
# Both with openat2 and, under a shim that makes it ENOSYS as on a kernel
# without it, with the O_NOFOLLOW walk stressd falls back to.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

ALLOWED=$T/allowed
OUTSIDE=$T/outside
mkdir -p "$ALLOWED" "$OUTSIDE"
printf 'allowed_dirs = %s\n' "$ALLOWED" >"$T/stressd.conf"

# lastupdates DIR: "name last" for every .rrd below DIR, sorted.
lastupdates() {
	local f
	find "$1" -name '*.rrd' -type f | sort | while read -r f; do
		printf '%s %s\n' "${f#"$1"/}" "$(rrdtool last "$f")"
	done
}

# swap DIR TARGET: rename DIR away (to DIR.away) and put a symlink to
# TARGET in its place, as fast as the shell can.
swap() {
	mv "$1" "$1.away" && ln -s "$2" "$1"
}

# attacks PASS: (a), (b1) and (b2) in allowed/PASS, outside/PASS.
attacks() {
	local A=$ALLOWED/$1 OUT=$OUTSIDE/$1 FILES U s before mirror scan n
	local done_on_disk
	mkdir -p "$A" "$OUT"
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
	# Every update its own call (no queue, one update per open): each of the
	# symlinked file's updates is one denied error.
	start_run --dir "$A/a" --files 4 --threads 1 --max-updates 400 \
	    --update-time 0 --zero-files 0 --use-queue=false --updates-per-open 1 \
	    --rra "$RRA" >/dev/null
	s=$(wait_run)
	assert_eq "$(rrdtool lastupdate "$OUT/victim.rrd")" "$before" \
	    "(a) the symlink's target outside the allowed tree was written"
	[ -L "$A/a/1.rrd" ] || fail "(a) the symlinked run file was replaced"
	assert_num "$(jnum "$s" errors_by_kind.denied)" '>' 0 "(a) errors_by_kind.denied"
	assert_eq "$(jnum "$s" errors_by_kind.denied)" "$(jnum "$s" errors)" \
	    "(a) every error is denied ($(jq -c .errors_by_kind <<<"$s"))"
	assert_eq "$(jnum "$s" updates_failed)" "$(jnum "$s" errors_by_kind.denied)" \
	    "(a) updates_failed, one per denied call"
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
	assert_eq "$(jget "$s" state)" 'done' "(b1) state"
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
	# The mirror, and a reference copy the daemon can never reach, read
	# only after the run: nothing slow between the copy and the swap.
	cp -a "$A/b2" "$OUT/b2"
	rm -rf "$T/b2.ref"
	cp -a "$OUT/b2" "$T/b2.ref"
	swap "$A/b2" "$OUT/b2"
	s=$(stats)
	assert_eq "$(jget "$s" state)" running "(b2) the swap came during the load"
	s=$(wait_run)
	assert_eq "$(lastupdates "$OUT/b2")" "$(lastupdates "$T/b2.ref")" \
	    "(b2) files outside the allowed tree were written or created"
	assert_eq "$(jget "$s" state)" 'done' "(b2) state"
	assert_eq "$(jnum "$s" updates_completed)" "$U" "(b2) updates_completed"
	assert_eq "$(jnum "$s" errors)" 0 "(b2) errors"
	check_invariants "$s" "(b2)"
	check_drained "$s" "(b2)"
	scan=$(rrd_scan "$A/b2.away" "$FILES")
	assert_eq "$(rrd_sum "$scan")" "$U" "(b2) updates on disk in the held dir"
}

start_daemon --config "$T/stressd.conf"
attacks openat2
grep -q "reached beneath it with openat2" "$DLOG" ||
    fail "the daemon does not say it used openat2"
assert_alive "the confinement tests (openat2)"

# ---- the same through the O_NOFOLLOW walk: openat2 fails ENOSYS
if command -v cc >/dev/null 2>&1; then
	stop_daemon TERM 20
	cat >"$T/noopenat2.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>

long
syscall(long n, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	if (n == SYS_openat2) {
		errno = ENOSYS;
		return -1;
	}
	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "syscall");
	return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
EOF
	cc -shared -fPIC -o "$T/noopenat2.so" "$T/noopenat2.c" -ldl ||
	    fail "cannot build the openat2 shim"
	preload=$T/noopenat2.so
	asan=$(ldd "$STRESSD" | awk '/libasan/ { print $3 }')
	[ -z "$asan" ] || preload=$asan:$preload
	rm -f "$SOCK"
	LD_PRELOAD=$preload start_daemon --config "$T/stressd.conf"
	attacks walk
	grep -q "reached beneath it with an O_NOFOLLOW walk" "$DLOG" ||
	    fail "the daemon under the shim does not say it walked"
	assert_alive "the confinement tests (walk)"
else
	log "no C compiler: the O_NOFOLLOW walk is left to tests/unit/confine"
fi
log "PASS"
