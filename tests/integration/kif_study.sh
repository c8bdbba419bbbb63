#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# contrib/kif-study at a tiny size (30 files, one 10-row RRA, 300-MiB
# filesystems): three loop-device filesystems (ext3 data=writeback, ext3,
# xfs) mounted noatime,nodev,nosuid,noexec, one sweep over them, every
# update on disk (checked on a --keep run before this test unmounts it),
# and nothing left behind -- no mount, no loop device on its images, no
# file in the work directory -- after a normal end, after SIGINT in the
# middle of the sweep, and after refused arguments.  Skips where loop
# devices cannot be used (not root, no /dev/loop-control, no mkfs.ext3 or
# mkfs.xfs, or attaching, formatting or mounting a probe image fails).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
KIF=$TOP_SRCDIR/contrib/kif-study
FILES=30
UPDATES=100		# 30 x 100000 / 30000
PROBE_DEV=
KIF_PID=

# Whatever this test or a broken kif-study left: mounts and loop devices
# on anything under $T, before lib.sh's cleanup removes $T.
kif_cleanup() {
	local rc=$? m d i p
	trap - ERR	# as lib.sh's cleanup, which runs next with our rc
	set +eE
	if [ -n "$KIF_PID" ] && kill -0 "$KIF_PID" 2>/dev/null; then
		kill -INT "$KIF_PID" 2>/dev/null
		for ((i = 0; i < 300; i++)); do
			kill -0 "$KIF_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$KIF_PID" 2>/dev/null
	fi
	# A private stressd a killed kif-study left running (its state
	# dir is ours; lib.sh's is not one), before the mounts it may hold
	# open.
	for p in /proc/[0-9]*; do
		m=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) || continue
		[[ $m == *"--state-dir $T/"* ]] &&
		    [ "${p#/proc/}" != "$DPID" ] || continue
		kill -KILL "${p#/proc/}" 2>/dev/null
		# and its socket's temp dir
		[[ $m =~ --socket\ (/tmp/kif-study\.[A-Za-z0-9]+)/s\.sock ]] &&
		    rm -rf "${BASH_REMATCH[1]}"
	done
	awk -v t="$T/" 'index($2, t) == 1 { print $2 }' /proc/self/mounts |
	    sort -r | while read -r m; do umount "$m" || umount -l "$m"; done
	[ -n "$PROBE_DEV" ] && losetup -d "$PROBE_DEV" 2>/dev/null
	losetup -l -n -O NAME,BACK-FILE 2>/dev/null |
	    awk -v t="$T/" 'index($2, t) == 1 { print $1 }' |
	    while read -r d; do losetup -d "$d"; done
	return "$rc"
}
trap 'kif_cleanup; cleanup' EXIT

# ---- can loop devices be used here?
[ "$(id -u)" -eq 0 ] || skip "not root (loop devices and mounts need it)"
[ -e /dev/loop-control ] || skip "no /dev/loop-control (loop device support)"
PATH=$PATH:/sbin:/usr/sbin
for t in losetup:util-linux mount:mount umount:mount mountpoint:util-linux \
    setsid:util-linux mkfs.ext3:e2fsprogs mkfs.xfs:xfsprogs; do
	command -v "${t%%:*}" >/dev/null ||
	    skip "${t%%:*} is not installed (apt-get install ${t#*:})"
done
truncate -s 300M "$T/probe.img"
PROBE_DEV=$(losetup -f --show "$T/probe.img" 2>"$T/probe.err") ||
    skip "losetup cannot attach a loop device: $(cat "$T/probe.err")"
mkdir "$T/probe"
for fs in ext3 xfs; do
	"mkfs.$fs" -q "$([ $fs = xfs ] && echo -f || echo -F)" "$PROBE_DEV" >"$T/probe.err" 2>&1 &&
	    mount -t "$fs" "$PROBE_DEV" "$T/probe" 2>>"$T/probe.err" ||
	    skip "cannot make and mount $fs on a loop device: $(cat "$T/probe.err")"
	umount "$T/probe"
done
losetup -d "$PROBE_DEV"
PROBE_DEV=
rm -rf "$T/probe" "$T/probe.img"

# kif ARGS...: contrib/kif-study with this build's programs, tiny files.
kif() {
	STRESSD=$STRESSD STRESSCTL=$STRESSCTL timeout -k 10 120 "$KIF" \
	    --files "$FILES" --rra "$RRA" "$@"
}

# opt_in LIST OPT: OPT is one of the comma-separated LIST.
opt_in() { [[ ,$1, == *",$2,"* ]]; }

# check_runs STATE_DIR STATE: three runs of one sweep, in the order
# ext3 data=writeback, ext3, xfs, each with the kif knobs scaled to 30
# files, on a loop device mounted noatime,nodev,nosuid,noexec, ended STATE.
check_runs() {
	local st=$1 want=$2 reps n i rep fs opts o
	local labels=("ext3 data=writeback" "ext3 data=ordered" xfs)
	reps=$(find "$st/runs" -name report.json | sort -V)
	n=$(wc -l <<<"$reps")
	assert_eq "$n" 3 "runs recorded in $st"
	# shellcheck disable=SC2086  # one file name a line, no blanks
	assert_eq "$(jq -r .params.sweep_id $reps | sort -u | wc -l)" 1 \
	    "one sweep id"
	i=0
	for rep in $reps; do
		fs=$(jq -r .target.fs_type "$rep")
		opts=$(jq -r .target.mount_options "$rep")
		assert_eq "$fs" "$(echo ext3 ext3 xfs | cut -d' ' -f$((i + 1)))" \
		    "run $((i + 1)) fs_type"
		assert_eq "$(jq -r .state "$rep")" "$want" "run $((i + 1)) state"
		assert_eq "$(jq -r .params.label "$rep")" "${labels[i]}" \
		    "run $((i + 1)) label"
		[[ $(jq -r .target.mount_source "$rep") == /dev/loop* ]] ||
		    fail "run $((i + 1)) not on a loop device: $(jq -c .target "$rep")"
		for o in noatime nodev nosuid noexec; do
			opt_in "$opts" "$o" || fail "run $((i + 1)): no $o in $opts"
		done
		if [ "$i" -eq 0 ]; then
			opt_in "$opts" data=writeback ||
			    fail "run 1: no data=writeback in $opts"
		else
			! opt_in "$opts" data=writeback ||
			    fail "run $((i + 1)): data=writeback in $opts"
		fi
		# until steady, for at most twice the 0.3 s of load
		assert_eq "$(jq -c '.params | [.files, .max_updates, .threads,
		    .write_threads, .modulus, .sync, .until_steady]' "$rep")" \
		    "[$FILES,$UPDATES,75,10,1,\"data\",0.6]" "run $((i + 1)) knobs"
		# 0.3 s of load: sampled every 0.1 s (update_time / 60,
		# 0.1 to 1 s), not the default 1 s, so a verdict can be had.
		assert_eq "$(jq .params.sample_interval "$rep")" 0.1 \
		    "run $((i + 1)) sample_interval"
		i=$((i + 1))
	done
}

# check_gone WORKDIR OUTPUT: nothing kif-study printed it made is left:
# none of its loop devices is attached to its images, nothing is mounted
# under WORKDIR, and WORKDIR holds only the user's keep.me (or is gone).
check_gone() {
	local w=$1 out=$2 d imgdir
	imgdir=$(grep -oP '^filesystems: .* in \K/.*' <<<"$out")/img
	[[ $imgdir == "$w"/kif-study.*/img ]] || fail "no work dir in: $out"
	# shellcheck disable=SC2013  # one device name a line
	for d in $(grep -oP '^  [a-z0-9-]+: \K/dev/loop[0-9]+' <<<"$out"); do
		! losetup -n -O BACK-FILE "$d" 2>/dev/null | grep -qF "$imgdir/" ||
		    fail "$d still attached to $(losetup -n -O BACK-FILE "$d")"
	done
	! losetup -l -n -O BACK-FILE | grep -qF "$w/" ||
	    fail "loop devices on $w: $(losetup -l | grep -F "$w/")"
	! grep -qF " $w/" /proc/self/mounts ||
	    fail "mounts remain: $(grep -F " $w/" /proc/self/mounts)"
	if [ -e "$w/keep.me" ]; then
		assert_eq "$(find "$w" -mindepth 1)" "$w/keep.me" "left in $w"
	else
		[ ! -e "$w" ] || fail "left in $w: $(find "$w" | head)"
	fi
}

# ---- refused arguments: exit 2 or 1 naming the problem, nothing made
rc=0
kif --dir "$T/wx" --repeat 0 >/dev/null 2>"$T/err" || rc=$?
assert_eq "$rc" 2 "--repeat 0"
grep -q -- --repeat "$T/err" || fail "--repeat 0: $(cat "$T/err")"
rc=0
kif >/dev/null 2>"$T/err" || rc=$?
assert_eq "$rc" 2 "no --dir"
grep -q -- "--dir WORKDIR is required" "$T/err" || fail "no --dir: $(cat "$T/err")"
rc=0
kif --dir "$T/wx" --size 200M >/dev/null 2>"$T/err" || rc=$?
assert_eq "$rc" 2 "--size 200M"
grep -q "300 MiB" "$T/err" || fail "--size 200M: $(cat "$T/err")"
rc=0
kif --dir "$T/wx" --size 9999999M >/dev/null 2>"$T/err" || rc=$?
assert_eq "$rc" 1 "too little free space"
grep -qE 'MiB free; three 9999999-MiB filesystems need 29999997 MiB' \
    "$T/err" || fail "free-space refusal: $(cat "$T/err")"
[ ! -e "$T/wx" ] || fail "a refused run left $T/wx"
"$KIF" --help | grep -q 'data=writeback' || fail "--help"
# --capacity: the sweep's --repeat, --update-time and --until-steady refused,
# --start-rate only with it and above 0; --until-steady with flat out refused
for a in "--repeat 2" "--update-time 5" "--until-steady 5" "--start-rate 0"; do
	rc=0
	# shellcheck disable=SC2086  # an option and its value
	kif --dir "$T/wx" --capacity $a >/dev/null 2>"$T/err" || rc=$?
	assert_eq "$rc" 2 "--capacity $a"
	grep -q -- "${a% *}[: ]" "$T/err" || fail "--capacity $a: $(cat "$T/err")"
done
rc=0
kif --dir "$T/wx" --update-time 0 --until-steady 5 >/dev/null 2>"$T/err" ||
    rc=$?
assert_eq "$rc" 2 "--until-steady with --update-time 0"
grep -q -- "--until-steady 5 needs --update-time above 0" "$T/err" ||
    fail "--until-steady flat out: $(cat "$T/err")"
rc=0
kif --dir "$T/wx" --start-rate 100 >/dev/null 2>"$T/err" || rc=$?
assert_eq "$rc" 2 "--start-rate without --capacity"
grep -q -- "--start-rate needs --capacity" "$T/err" ||
    fail "--start-rate without --capacity: $(cat "$T/err")"
[ ! -e "$T/wx" ] || fail "a refused --capacity left $T/wx"
"$KIF" --help | grep -q -- '--capacity' || fail "--help: no --capacity"

# ---- a --keep run through this test's stressd: every update on disk
start_daemon
rc=0
# --graph: librrd's rrd_graph (fontconfig, pango) keeps allocations for
# the process's life, which LeakSanitizer reports under
# --enable-sanitizers (as graph.sh says); they are not ours.
out=$(ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    kif --dir "$T/wa" --socket "$SOCK" --keep --graph "$T/kif.png" \
    2>"$T/a.err") || rc=$?
log "--keep run through our stressd: exit $rc"
assert_eq "$rc" 0 "kif-study --keep ($(tail -n 20 "$T/a.err"))"
check_runs "$STATE" "done"
for rep in $(find "$STATE/runs" -name report.json | sort -V); do
	dir=$(jq -r .params.dir "$rep")
	mountpoint -q "$(dirname "$dir")" || fail "$dir is not on a mount"
	# until steady: as many as were generated, the count at least
	gen=$(jq .counters.generated "$rep")
	assert_num "$gen" '>=' "$UPDATES" "$rep generated"
	assert_eq "$(jq .counters.updates_completed "$rep")" "$gen" \
	    "$rep updates_completed"
	assert_eq "$(rrd_sum "$(rrd_scan "$dir" "$FILES")")" "$gen" \
	    "$dir: rrdtool lastupdate sum"
	grep -q "run $(jq .run_id "$rep")\\b" <<<"$out" ||
	    fail "compare lacks run $(jq .run_id "$rep"): $out"
done
grep -q 'umount ' "$T/a.err" || fail "--keep says not how to remove: $(cat "$T/a.err")"
# --graph: the sweep drew its three runs, one line per filesystem
[ "$(head -c 8 "$T/kif.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "--graph: no PNG in $T/kif.png: $(cat "$T/a.err")"
grep -q '^3 runs, 3 lines .*kif.png' "$T/a.err" ||
    fail "--graph: not 3 lines: $(cat "$T/a.err")"
log "--keep run: 3 runs, every update generated on disk"
(kif_cleanup)
rm -rf "$T/wa"

# ---- a private stressd, records kept: everything made is removed
mkdir "$T/wb"
: >"$T/wb/keep.me"
rc=0
out=$(kif --dir "$T/wb" --state-dir "$T/bstate" 2>"$T/b.err") || rc=$?
log "private stressd run: exit $rc"
assert_eq "$rc" 0 "kif-study ($(tail -n 20 "$T/b.err"))"
check_runs "$T/bstate" "done"
check_gone "$T/wb" "$out"
grep -qE '^significant queue avg( +[0-9.]+){3}$' <<<"$out" ||
    fail "no compare of three runs: $out"
grep -qE '^ +ext3 data=writeback +ext3 data=ordered +xfs$' <<<"$out" ||
    fail "columns not headed by filesystem: $out"
grep -q 'cannot be judged' <<<"$out" && grep -q -- 'kif-study --repeat 3' \
    <<<"$out" || fail "one run each judged: $out"
! grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' \
    "$T/bstate/stressd.log" || fail "sanitizer report: $(cat "$T/bstate/stressd.log")"

# ---- --capacity: one search over the three filesystems, with the kif's
# threads, its steps' updates all on disk (--keep), then the ranking
rc=0
out=$(kif --capacity --dir "$T/wd" --state-dir "$T/dstate" --keep \
    --start-rate 300 -- --max-rate 400 --precision 50 --step-min 4 \
    --step-max 6 --settle 1 --repeats 0 2>"$T/d.err") || rc=$?
log "--capacity: exit $rc"
assert_eq "$rc" 0 "kif-study --capacity ($(tail -n 20 "$T/d.err"))"
cap=$(cat "$T"/dstate/runs/*/capacity.json)
assert_eq "$(jq -r '[.dirs[].fs_type] | join(" ")' <<<"$cap")" \
    "ext3 ext3 xfs" "--capacity: the filesystems searched"
assert_eq "$(jq -r '[.dirs[].dir | sub(".*/"; "")] | join(" ")' <<<"$cap")" \
    "ext3-writeback ext3-ordered xfs" "--capacity: their order"
assert_eq "$(jq -r '.state, (.dirs[].state)' <<<"$cap" | sort -u)" done \
    "--capacity: search and directories done"
assert_eq "$(jq -r '[.dirs[].label] | join(",")' <<<"$cap")" \
    "ext3 data=writeback,ext3 data=ordered,xfs" "--capacity: the labels"
for d in 0 1 2; do
	dir=$(jq -r ".dirs[$d].dir" <<<"$cap")
	want=0
	for id in $(jq -r ".steps[] | select(.dir_index == $d) | .run_id" \
	    <<<"$cap"); do
		rep=$T/dstate/runs/$id/report.json
		assert_eq "$(jq -c '.params | [.files, .threads, .write_threads, .sync]' \
		    "$rep")" "[$FILES,75,10,\"data\"]" "step run $id: knobs"
		want=$((want + $(jq .counters.updates_completed "$rep")))
	done
	assert_num "$want" '>' 0 "$dir: updates of its steps"
	assert_eq "$(rrd_sum "$(rrd_scan "$dir" "$FILES")")" "$want" \
	    "$dir: rrdtool count vs its steps"
done
grep -q '^Ranking' <<<"$out" || fail "--capacity: no ranking: $out"
(kif_cleanup)
rm -rf "$T/wd"

# ---- SIGINT in the middle of the sweep's first run (paced over 30 s)
# A background job of a script ignores SIGINT, and bash cannot trap a
# signal ignored at its start: give it back its default, as a terminal's
# Ctrl-C would find it.
env --default-signal=INT "$KIF" --files "$FILES" --rra "$RRA" \
    --dir "$T/wc" --state-dir "$T/cstate" --update-time 30 \
    >"$T/c.out" 2>"$T/c.err" &
KIF_PID=$!
deadline=$((SECONDS + 30))
until grep -qs 'samples stored' "$T/cstate/runs/1/stress.log"; do
	kill -0 "$KIF_PID" 2>/dev/null ||
	    fail "kif-study ended early: $(cat "$T/c.out" "$T/c.err")"
	[ "$SECONDS" -lt "$deadline" ] || fail "run 1 never wrote an update"
	sleep 0.1
done
kill -INT "$KIF_PID"
t0=$SECONDS
wait_pid_exit "$KIF_PID" 30 || fail "kif-study still running 30 s after SIGINT"
rc=0
wait "$KIF_PID" || rc=$?
KIF_PID=
log "SIGINT in run 1: exit $rc after $((SECONDS - t0)) s"
assert_eq "$rc" 130 "interrupted kif-study ($(tail -n 20 "$T/c.err"))"
assert_eq "$(jq -r .state "$T/cstate/runs/1/report.json")" stopped \
    "interrupted run"
[ ! -e "$T/cstate/runs/2" ] || fail "the sweep went on after SIGINT"
grep -q 'run 1\b' "$T/c.out" || fail "no compare after SIGINT: $(cat "$T/c.out")"
check_gone "$T/wc" "$(cat "$T/c.out")"
log "ok"
