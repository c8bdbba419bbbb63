# shellcheck shell=bash
# Sourced by tests/integration/lib.sh (which see; it needs its fail,
# skip, log, $T, $DPID and CLEANUP_HOOKS).
#
# Storage of a known speed: a filesystem on a loop device over a sparse
# image in $T, its writes throttled to N IOPS by the blkio (cgroup v1) or
# io (cgroup v2) controller.  loop_cleanup, registered by the first
# loop_fs, undoes it all at exit: the throttles first (one left on a loop
# device would slow whatever attaches to it next, in any later test), then
# the mounts, then the loop devices.
LOOP_DEVS=()		# attached by loop_fs
LOOP_MNTS=()		# mounted by loop_fs
THROTTLED=()		# MAJ:MIN of each device throttle_writes throttled
IO_CGROUP=		# cgroup v2: the cgroup throttle_writes made
BLKIO_V1=${BLKIO_V1:-/sys/fs/cgroup/blkio}
CGROUP_V2=${CGROUP_V2:-/sys/fs/cgroup}

# loop_require FS...: skip unless root can attach a loop device and mkfs
# every FS (ext4, xfs, ...) here.
loop_require() {
	local fs
	[ "$(id -u)" -eq 0 ] || skip "not root (loop devices and mounts need it)"
	[ -e /dev/loop-control ] || skip "no /dev/loop-control (modprobe loop)"
	PATH=$PATH:/sbin:/usr/sbin
	for fs in losetup mount umount "${@/#/mkfs.}"; do
		command -v "$fs" >/dev/null ||
		    skip "$fs is not installed (util-linux, mount, e2fsprogs, xfsprogs)"
	done
}

# throttle_supported: true when writes can be throttled here (cgroup v1
# blkio at $BLKIO_V1, or cgroup v2 with the io controller).
throttle_supported() {
	if [ -f "$CGROUP_V2/cgroup.controllers" ]; then
		grep -qw io "$CGROUP_V2/cgroup.controllers"
	else
		[ -w "$BLKIO_V1/blkio.throttle.write_iops_device" ]
	fi
}

# dev_majmin DEV: "MAJ:MIN" of a block device.
dev_majmin() {
	local hex
	hex=$(stat -L -c '%t %T' "$1") || fail "no device $1"
	# shellcheck disable=SC2086  # two words: major and minor in hex
	printf '%d:%d\n' $(printf '0x%s ' $hex)
}

# loop_fs FS SIZE_MIB NAME: an FS filesystem (mkfs.FS, quiet) on a new
# loop device over the sparse image $T/NAME.img, mounted noatime on
# $T/NAME; sets LOOP_DEV.  A throttle a killed test left on that device
# number is lifted first.
loop_fs() {
	local fs=$1 mib=$2 name=$3 force=-F
	[[ " ${CLEANUP_HOOKS[*]} " == *" loop_cleanup "* ]] ||
	    CLEANUP_HOOKS+=(loop_cleanup)
	truncate -s "${mib}M" "$T/$name.img"
	LOOP_DEV=$(losetup -f --show "$T/$name.img" 2>"$T/loop.err") ||
	    fail "losetup $T/$name.img: $(cat "$T/loop.err")"
	LOOP_DEVS+=("$LOOP_DEV")
	! throttle_supported || set_throttle "$(dev_majmin "$LOOP_DEV")" 0
	[ "$fs" != xfs ] || force=-f
	"mkfs.$fs" -q "$force" "$LOOP_DEV" >"$T/loop.err" 2>&1 ||
	    fail "mkfs.$fs $LOOP_DEV: $(cat "$T/loop.err")"
	mkdir -p "$T/$name"
	mount -t "$fs" -o noatime "$LOOP_DEV" "$T/$name" 2>"$T/loop.err" ||
	    fail "mount $LOOP_DEV on $T/$name: $(cat "$T/loop.err")"
	LOOP_MNTS+=("$T/$name")
}

# set_throttle MAJ:MIN IOPS: write IOPS of the device (0: none).  cgroup
# v1: the root blkio cgroup's rule, so every writer (the daemon's threads,
# the kernel's flushers, the loop worker) is held to it.  cgroup v2: the
# root cannot take io.max, so $IO_CGROUP, made on first use, with the
# daemon ($DPID) moved into it (the kernel's own writers, such as a
# journal thread, stay unthrottled there).
set_throttle() {
	local dev=$1 iops=$2 f want
	if [ -f "$CGROUP_V2/cgroup.controllers" ]; then
		if [ -z "$IO_CGROUP" ]; then
			[ "$iops" -gt 0 ] || return 0
			[ -n "$DPID" ] || fail "set_throttle: cgroup v2 needs the daemon running"
			echo +io >"$CGROUP_V2/cgroup.subtree_control"
			# cgroup writeback: the pages the daemon dirties are
			# written (also by its fdatasync) as its memory
			# cgroup's, so without +memory they would go out as
			# the root's, unthrottled
			echo +memory >"$CGROUP_V2/cgroup.subtree_control" ||
			    log "set_throttle: no memory controller; writeback may escape io.max"
			IO_CGROUP=$CGROUP_V2/stressd-it.$$
			mkdir -p "$IO_CGROUP"
			echo "$DPID" >"$IO_CGROUP/cgroup.procs"
		fi
		f=$IO_CGROUP/io.max
		want="$dev wiops=$([ "$iops" -gt 0 ] && echo "$iops" || echo max)"
		echo "$want" >"$f"
		# io.max lists only limited devices, all four limits
		if [ "$iops" -gt 0 ]; then
			grep -q "^$dev .*wiops=$iops\( \|\$\)" "$f" ||
			    fail "set_throttle: $f says: $(cat "$f")"
		else
			! grep -q "^$dev .*wiops=[0-9]" "$f" ||
			    fail "set_throttle: $f says: $(cat "$f")"
		fi
	else
		f=$BLKIO_V1/blkio.throttle.write_iops_device
		echo "$dev $iops" >"$f"
		if [ "$iops" -gt 0 ]; then
			grep -qx "$dev $iops" "$f" ||
			    fail "set_throttle: $f says: $(cat "$f")"
		else
			! grep -q "^$dev " "$f" ||
			    fail "set_throttle: $f says: $(cat "$f")"
		fi
	fi
}

# throttle_writes DEV IOPS: hold DEV's writes to IOPS per second (0 lifts
# it); skips where the host cannot throttle.
throttle_writes() {
	local mm
	throttle_supported ||
	    skip "no write throttle (cgroup v1 blkio or v2 io controller)"
	mm=$(dev_majmin "$1")
	[[ " ${THROTTLED[*]} " == *" $mm "* ]] || THROTTLED+=("$mm")
	set_throttle "$mm" "$2"
}

# loop_cleanup: CLEANUP_HOOK of loop_fs (the daemon is gone by then).
loop_cleanup() {
	local mm m i
	for mm in "${THROTTLED[@]}"; do
		# a subshell: a fail in it must not end the cleanup
		(set_throttle "$mm" 0) ||
		    printf '%s: cannot lift the throttle of %s\n' "$TEST_NAME" "$mm" >&2
	done
	for ((i = ${#LOOP_MNTS[@]} - 1; i >= 0; i--)); do
		m=${LOOP_MNTS[i]}
		for _ in $(seq 50); do
			umount "$m" 2>/dev/null && break
			sleep 0.2
		done
		! mountpoint -q "$m" || umount -l "$m"
	done
	for m in "${LOOP_DEVS[@]}"; do
		losetup -d "$m" ||
		    printf '%s: cannot detach %s\n' "$TEST_NAME" "$m" >&2
	done
	if [ -n "$IO_CGROUP" ]; then
		while read -r m; do
			echo "$m" >"$CGROUP_V2/cgroup.procs"
		done <"$IO_CGROUP/cgroup.procs"
		rmdir "$IO_CGROUP"
	fi
}
