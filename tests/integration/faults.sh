#!/bin/bash
# shellcheck disable=SC2015,SC2034  # A && B || fail is meant; LIB_NO_DAEMON is lib.sh's
# Faults during a run survived and reported (issue 5, 2): RRD files deleted,
# truncated and overwritten with garbage mid-run, a SIGBUS and a SIGFPE
# inside librrd made certain by a preloaded shim, a run whose every write
# fails for fail_after seconds (it ends failed, the next run works), and as
# root a full filesystem and a filesystem remounted read-only (4 MiB and
# 16 MiB tmpfs mounts).  Each time the daemon stays up, stats answers and
# keeps both conservation laws, errors_by_kind counts every error once
# under its kind, and stats and status show the first messages, each
# naming its file.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

# A writer thrown out of librrd by a SIGBUS or SIGFPE leaves behind the
# few hundred bytes librrd had allocated (see daemon/writer.c): under
# LeakSanitizer that is a leak inside librrd, not one of stressd's.
printf 'leak:librrd.so\n' >"$T/lsan.supp"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$T/lsan.supp"

# tmpfs mounts of this test, lazily unmounted before lib.sh's cleanup
# removes $T (the daemon may still hold files there).
MOUNTS=()
umount_all() {
	local m
	for m in "${MOUNTS[@]}"; do
		umount -l "$m" 2>/dev/null
	done
}
CLEANUP_HOOKS+=(umount_all)

KINDS=connection,corrupt,denied,locked,missing,no_space,other,permission,read_only
head -c 65536 /dev/urandom >"$T/garbage"

# Helpers built with the C compiler when there is one.
HAVE_CC=0
if command -v cc >/dev/null 2>&1; then
	HAVE_CC=1
	# garble FILE: overwrite FILE in place with random bytes under the
	# fcntl write lock librrd takes, as a tool respecting it would (an
	# unlocked in-place rewrite while librrd is inside the file cannot be
	# survived: see daemon/writer.c).
	cat >"$T/garble.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat st;
	char buf[65536];
	int fd, rnd;

	if (argc != 2 || (fd = open(argv[1], O_RDWR)) == -1 ||
	    fcntl(fd, F_SETLKW, &l) == -1 || fstat(fd, &st) == -1 ||
	    (rnd = open("/dev/urandom", O_RDONLY)) == -1)
		return 1;
	if (st.st_size > (off_t)sizeof(buf))
		st.st_size = sizeof(buf);
	if (read(rnd, buf, (size_t)st.st_size) != st.st_size ||
	    pwrite(fd, buf, (size_t)st.st_size, 0) != st.st_size)
		return 1;
	return close(fd) == 0 ? 0 : 1;
}
EOF
	# The shim: the first STRESSD_TEST_FAULTS updates of files under
	# STRESSD_TEST_FAULT_DIR truncate their file as librrd has just
	# mapped it (its madvise after mmap): to 0 bytes (the header read
	# faults, SIGBUS) and to 100 bytes, turn about (the header reads as
	# zeros past byte 100, and librrd divides by a zero row count, SIGFPE).
	cat >"$T/faultshim.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int	rrd_update_r(const char *, const char *, int, const char **);

static _Thread_local const char *current;
static _Thread_local char real_path[4096];
static atomic_int done;

int
rrd_update_r(const char *file, const char *tmpl, int argc, const char **argv)
{
	static int (*real)(const char *, const char *, int, const char **);
	const char *dir = getenv("STRESSD_TEST_FAULT_DIR");
	int rc;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "rrd_update_r");
	/* stressd names its files /proc/self/fd/N: the file's own path. */
	if (dir != NULL && *dir != '\0' && realpath(file, real_path) != NULL &&
	    strncmp(real_path, dir, strlen(dir)) == 0)
		current = real_path;
	rc = real(file, tmpl, argc, argv);
	current = NULL;
	return rc;
}

int
madvise(void *addr, size_t len, int advice)
{
	static int (*real)(void *, size_t, int);
	const char *n = getenv("STRESSD_TEST_FAULTS");
	int k;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "madvise");
	if (current != NULL && advice == MADV_RANDOM && n != NULL &&
	    atomic_load(&done) < atoi(n) &&
	    (k = atomic_fetch_add(&done, 1)) < atoi(n))
		truncate(current, k % 2 == 0 ? 0 : 100);
	current = NULL;
	return real(addr, len, advice);
}
EOF
	cc -o "$T/garble" "$T/garble.c" &&
	    cc -shared -fPIC -o "$T/faultshim.so" "$T/faultshim.c" -ldl ||
	    fail "cannot build the test helpers"
fi

start_daemon

# ---------------------------------------------------------------- checks

# check_kinds STATS LABEL: every kind present, and the counts add up to
# errors (exact once the run ended: during a run a failed batch is counted
# by kind just before the queue counts it).
check_kinds() {
	local s=$1 what=$2
	assert_eq "$(jq -r '.errors_by_kind | keys | join(",")' <<<"$s")" \
	    "$KINDS" "$what: errors_by_kind keys"
	assert_eq "$(jq '[.errors_by_kind[]] | add' <<<"$s")" \
	    "$(jnum "$s" errors)" "$what: errors_by_kind adds up to errors"
}

kind() { jnum "$1" "errors_by_kind.$2"; }

# check_messages STATS DIR TEXT LABEL: stats and status keep 1 to 10 first
# messages, every one naming a file of DIR, one of them holding TEXT
# (librrd's text); status counts the same kinds.
check_messages() {
	local s=$1 dir=$2 text=$3 what=$4 st
	jq -e --arg d "$dir/" '.error_messages | length >= 1 and length <= 10
	    and all(contains($d) and contains(".rrd"))' <<<"$s" >/dev/null ||
	    fail "$what: stats error_messages: $(jq -c .error_messages <<<"$s")"
	jq -e --arg t "$text" '.error_messages | any(contains($t))' \
	    <<<"$s" >/dev/null ||
	    fail "$what: no message says '$text': $(jq -c .error_messages <<<"$s")"
	st=$(ctlj status)
	jq -e --arg d "$dir/" '.run.error_messages | length >= 1 and
	    all(contains($d))' <<<"$st" >/dev/null ||
	    fail "$what: status error_messages: $(jq -c .run.error_messages <<<"$st")"
	assert_eq "$(jq -c .run.errors_by_kind <<<"$st")" \
	    "$(jq -c .errors_by_kind <<<"$s")" "$what: status errors_by_kind"
}

# only_kind STATS KIND LABEL: every error of the run was of KIND.
only_kind() {
	assert_num "$(kind "$1" "$2")" '>' 0 "$3: errors_by_kind.$2"
	assert_eq "$(kind "$1" "$2")" "$(jnum "$1" errors)" \
	    "$3: every error is $2 ($(jq -c .errors_by_kind <<<"$1"))"
}

# A tmpfs of SIZE at DIR, or false (not root, or no mount allowed here).
mount_tmpfs() {
	[ "$(id -u)" -eq 0 ] || return 1
	mkdir -p "$2"
	mount -t tmpfs -o "size=$1,mode=0755" stressd-test "$2" 2>/dev/null ||
	    return 1
	MOUNTS+=("$2")
}

# ---------------------------------------------------------------- deleted

D=$T/deleted
FILES=40
start_run --dir "$D" --files "$FILES" --threads 2 --write-threads 2 \
    --max-updates 4000 --update-time 4 --zero-files 0 --rra "$RRA" >/dev/null
s=$(wait_for_stats ".creates_completed == $FILES" 30)
check_invariants "$s" "deleted: after the creates"
rm -f "$D/3.rrd" "$D/7.rrd" "$D/11.rrd"
s=$(wait_for_stats '.errors_by_kind.missing > 0' 20)
check_invariants "$s" "deleted: mid-run"
s=$(wait_run)
assert_eq "$(jget "$s" state)" "done" "deleted: final state"
check_invariants "$s" "deleted: final stats"
check_drained "$s" "deleted: final stats"
check_kinds "$s" "deleted"
only_kind "$s" missing "deleted"
check_messages "$s" "$D" "No such file or directory" "deleted"
# On disk the three are gone; the rest hold what completed, less what
# landed in the three before they went (at most their 100 updates each).
scan=$(rrd_scan -m "$D" "$FILES")
assert_eq "$(awk '$3 == "-" { print $1 }' <<<"$scan" | xargs)" "3 7 11" \
    "deleted: files missing on disk"
completed=$(jnum "$s" updates_completed)
sum=$(rrd_sum "$scan")
assert_num "$sum" '<=' "$completed" "deleted: updates on disk"
assert_num "$sum" '>=' "$completed - 300" "deleted: updates on disk"
log "deleted: $(jnum "$s" errors) errors, all missing; $sum updates on disk"

# ---------------------------------------------------------------- corrupt

# Truncated to 0 or to a random size, replaced by garbage (a rename over
# the file), rewritten with garbage in place under librrd's lock: while
# 200 small files are written at 30,000 updates/s.
D=$T/corrupt
FILES=200
start_run --dir "$D" --files "$FILES" --threads 2 --write-threads 2 \
    --max-updates 150000 --update-time 5 --zero-files 0 --rra "$RRA" \
    >/dev/null
s=$(wait_for_stats ".creates_completed == $FILES" 30)
size=$(stat -c %s "$D/0.rrd")
n=0
end=$((SECONDS + 3))
while [ "$SECONDS" -lt "$end" ]; do
	f=$D/$((RANDOM % FILES)).rrd
	case $((n % 4)) in
	0) truncate -s 0 "$f" ;;
	1) truncate -s $((RANDOM % size)) "$f" ;;
	2) head -c "$size" "$T/garbage" >"$D/.garbage" && mv -f "$D/.garbage" "$f" ;;
	3) [ "$HAVE_CC" = 0 ] || "$T/garble" "$f" ||
	    fail "corrupt: garble $f failed" ;;
	esac
	n=$((n + 1))
	if [ $((n % 50)) -eq 0 ]; then
		check_invariants "$(stats)" "corrupt: mid-run, $n faults"
	fi
done
assert_alive "corrupt: $n faults"
s=$(wait_run)
assert_eq "$(jget "$s" state)" "done" "corrupt: final state"
check_invariants "$s" "corrupt: final stats"
check_drained "$s" "corrupt: final stats"
check_kinds "$s" "corrupt"
assert_num "$(kind "$s" corrupt)" '>' 0 "corrupt: errors_by_kind.corrupt"
# Nothing else but a file locked by garble ("could not lock RRD").
for k in no_space read_only permission missing other; do
	# A kind-other error names itself in the daemon's log.
	other=$(grep -m1 'no known kind' "$DLOG" || true)
	assert_eq "$(kind "$s" "$k")" 0 "corrupt: errors_by_kind.$k ($other)"
done
check_messages "$s" "$D" ".rrd" "corrupt"
bad=0
for ((i = 0; i < FILES; i++)); do
	rrdtool info "$D/$i.rrd" >/dev/null 2>&1 || bad=$((bad + 1))
done
assert_num "$bad" '>' 0 "corrupt: files rrdtool finds damaged"
log "corrupt: $n faults, $bad files damaged; errors_by_kind" \
    "$(jq -c .errors_by_kind <<<"$s")"

# ---------------------------------------------------------------- fail_after

D=$T/failing
FILES=50
start_run --dir "$D" --files "$FILES" --threads 1 --write-threads 2 \
    --max-updates 30000 --update-time 30 --zero-files 0 --rra "$RRA" \
    --fail-after 2 >/dev/null
s=$(wait_for_stats ".creates_completed == $FILES and .updates_completed > 200" 30)
check_invariants "$s" "fail_after: before"
for ((i = 0; i < FILES; i++)); do
	head -c "$size" "$T/garbage" >"$D/.garbage"
	mv -f "$D/.garbage" "$D/$i.rrd"
done
t0=$(date +%s.%N)
rc=0
s=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj wait 2>"$T/ctl.err") || rc=$?
t1=$(date +%s.%N)
took=$(jq -n "$t1 - $t0")
assert_eq "$rc" 1 "fail_after: stressctl wait exit status for a failed run"
is_json "$s" || fail "fail_after: wait printed no JSON: $s"
assert_eq "$(jget "$s" state)" failed "fail_after: final state"
reason=$(jget "$s" reason)
assert_contains "$reason" "every write failed for 2 s; first error: " \
    "fail_after: reason"
assert_contains "$reason" "$D/" "fail_after: the reason names a file"
assert_num "$took" '>=' 1.5 "fail_after: seconds to fail"
assert_num "$took" '<=' 6 "fail_after: seconds to fail"
check_invariants "$s" "fail_after: final stats"
check_drained "$s" "fail_after: final stats"
check_kinds "$s" "fail_after"
only_kind "$s" corrupt "fail_after"
check_messages "$s" "$D" "is not an RRD file" "fail_after"
assert_num "$(jnum "$s" generated)" '<' 30000 "fail_after: generators stopped"
id=$(jget "$s" run_id)
tail -n 1 "$STATE/runs/$id/stress.log" | grep -q "^# run $id failed: every write failed" ||
    fail "fail_after: stress.log does not end failed: $(tail -n 3 "$STATE/runs/$id/stress.log")"
grep -q 'QS:' "$STATE/runs/$id/stress.log" ||
    fail "fail_after: no stats block in stress.log"
rep=$(cat "$STATE/runs/$id/report.json")
assert_eq "$(jget "$rep" state)" failed "fail_after: report.json state"
assert_eq "$(jget "$rep" errors.by_kind.corrupt)" "$(kind "$s" corrupt)" \
    "fail_after: report.json errors.by_kind.corrupt"
assert_alive "fail_after"
log "fail_after: failed ${took} s after the files went bad: $reason"
# The daemon takes the next run.
D=$T/after
start_run --dir "$D" --files 20 --max-updates 2000 --update-time 0 \
    --zero-files 0 --rra "$RRA" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" "done" "the run after the failed one: state"
assert_eq "$(jnum "$s" errors)" 0 "the run after the failed one: errors"
assert_eq "$(rrd_sum "$(rrd_scan "$D" 20)")" 2000 \
    "the run after the failed one: updates on disk"

# ---------------------------------------------------------------- full fs

# 4 MiB holds about 200 of these 16 KiB files (20 KiB in pages).
M=$T/full
FILES=300
if mount_tmpfs 4m "$M"; then
	start_run --dir "$M" --files "$FILES" --threads 2 --write-threads 2 \
	    --max-updates 3000 --update-time 3 --zero-files 0 \
	    --rra 'RRA:AVERAGE:0.5:1:2000' >/dev/null
	s=$(wait_for_stats '.errors_by_kind.no_space > 0' 30)
	check_invariants "$s" "full: mid-run"
	s=$(wait_run)
	assert_eq "$(jget "$s" state)" "done" "full: final state"
	check_invariants "$s" "full: final stats"
	check_drained "$s" "full: final stats"
	check_kinds "$s" "full"
	only_kind "$s" no_space "full"
	# librrd gives no message for this one: ours says why.
	check_messages "$s" "$M" "bytes free on the filesystem" "full"
	created=$(jnum "$s" creates_completed)
	assert_num "$created" '<' "$FILES" "full: creates_completed"
	assert_num "$(jnum "$s" creates_failed)" '>' 0 "full: creates_failed"
	# Every file created is there, no temporary file is left, and the
	# files hold every completed update.
	assert_eq "$(find "$M" -name '*.rrd' | wc -l)" "$created" \
	    "full: RRD files on disk"
	assert_eq "$(find "$M" -type f ! -name '*.rrd' | wc -l)" 0 \
	    "full: temporary files left"
	scan=$(rrd_scan -m "$M" "$FILES")
	assert_eq "$(rrd_sum "$scan")" "$(jnum "$s" updates_completed)" \
	    "full: updates on disk"
	assert_alive "full filesystem"
	log "full: $created of $FILES files created, $(jnum "$s" errors)" \
	    "no_space errors, $(df -k --output=avail "$M" | tail -n 1) KiB free"
else
	log "SKIP full filesystem: needs root and a tmpfs mount"
fi

# ---------------------------------------------------------------- read-only

M=$T/ro
FILES=60
if mount_tmpfs 16m "$M"; then
	start_run --dir "$M" --files "$FILES" --threads 1 --write-threads 2 \
	    --max-updates 6000 --update-time 6 --zero-files 0 --rra "$RRA" \
	    >/dev/null
	s=$(wait_for_stats ".creates_completed == $FILES and .updates_completed > 200" 30)
	# A remount fails (EBUSY) while librrd has a file open for writing.
	for ((i = 0; i < 200; i++)); do
		mount -o remount,ro "$M" 2>/dev/null && break
		sleep 0.02
	done
	[ "$i" -lt 200 ] || fail "read-only: cannot remount $M read-only"
	s=$(wait_for_stats '.errors_by_kind.read_only > 0' 20)
	check_invariants "$s" "read-only: mid-run"
	s=$(wait_run)
	assert_eq "$(jget "$s" state)" "done" "read-only: final state"
	check_invariants "$s" "read-only: final stats"
	check_drained "$s" "read-only: final stats"
	check_kinds "$s" "read-only"
	only_kind "$s" read_only "read-only"
	check_messages "$s" "$M" "Read-only file system" "read-only"
	scan=$(rrd_scan "$M" "$FILES")
	assert_eq "$(rrd_sum "$scan")" "$(jnum "$s" updates_completed)" \
	    "read-only: updates on disk"
	assert_alive "read-only filesystem"
	log "read-only: $(jnum "$s" updates_completed) updates written," \
	    "$(jnum "$s" errors) read_only errors"
else
	log "SKIP read-only filesystem: needs root and a tmpfs mount"
fi

# ---------------------------------------------------------------- SIGBUS

# Certain faults inside librrd, with fds and maps checked afterwards.
if [ "$HAVE_CC" = 1 ]; then
	stop_daemon TERM 20
	preload=$T/faultshim.so
	asan=$(ldd "$STRESSD" | awk '/libasan/ { print $3 }')
	[ -z "$asan" ] || preload=$asan:$preload
	D=$T/signals
	FAULTS=6
	rm -f "$SOCK"
	LD_PRELOAD=$preload STRESSD_TEST_FAULT_DIR=$D/ \
	    STRESSD_TEST_FAULTS=$FAULTS start_daemon
	# start_daemon's `version` probe may still hold a descriptor: count
	# once the number holds still.
	n=$(find "/proc/$DPID/fd" -mindepth 1 | wc -l) fds=-1
	until [ "$n" = "$fds" ]; do
		fds=$n; sleep 0.2; n=$(find "/proc/$DPID/fd" -mindepth 1 | wc -l)
	done
	start_run --dir "$D" --files 50 --threads 1 --write-threads 2 \
	    --max-updates 2000 --update-time 1 --zero-files 0 --rra "$RRA" \
	    >/dev/null
	s=$(wait_run)
	assert_eq "$(jget "$s" state)" "done" "signals: final state"
	check_invariants "$s" "signals: final stats"
	check_kinds "$s" "signals"
	only_kind "$s" corrupt "signals"
	assert_num "$(kind "$s" corrupt)" '>=' "$FAULTS" "signals: corrupt errors"
	check_messages "$s" "$D" "inside librrd" "signals"
	for sig in SIGBUS SIGFPE; do
		assert_eq "$(grep -c "after $sig on $D/[0-9]*\.rrd: 1 maps unmapped, 1 descriptors closed" "$DLOG")" \
		    $((FAULTS / 2)) "signals: $sig recovered, map and descriptor released"
	done
	assert_eq "$(find "/proc/$DPID/fd" -mindepth 1 | wc -l)" "$fds" \
	    "signals: descriptors after the run"
	assert_eq "$(grep -c "$D/" "/proc/$DPID/maps" || true)" 0 \
	    "signals: maps of the run's files left"
	assert_alive "SIGBUS and SIGFPE inside librrd"
	log "signals: $FAULTS faults inside librrd survived," \
	    "$(kind "$s" corrupt) corrupt errors"
else
	log "SKIP SIGBUS/SIGFPE shim: no C compiler"
fi

log "ok"
