#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The target's filesystem is recorded as the kernel sees it where a path
# prefix of the mount table would lie: on a bind mount (the mount point
# of the filesystem, the bind's own point and root beside it), on a bind
# of a directory onto itself (what a unit's ReadWritePaths= makes), and
# in a chroot whose root is no mount point (statfs, or another mount of
# the same device).  Also runs the mountinfo unit test in that chroot.
# Needs root and unshare(1); all mounts live in a private mount namespace.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
if [ -z "${MOUNTS_PRIVATE:-}" ]; then
	if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
		echo "SKIP: mounts: needs root and unshare -m" >&2
		exit 77
	fi
	MOUNTS_PRIVATE=1 exec unshare -m --propagation private -- bash "$0" "$@"
fi
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
. "$LIB_DIR/mountview.sh"

MOUNTS=()
umount_all() {
	local i
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		umount -l "${MOUNTS[i]}" 2>/dev/null
	done
}
# Before lib.sh's cleanup removes $T: nothing bound into it survives.
CLEANUP_HOOKS+=(umount_all)
mnt() { mount "$@"; MOUNTS+=("${!#}"); }
bind_ro() { mnt --bind "$1" "$2"; mount -o remount,bind,ro "$2"; }

run_in() {
	local r
	r=$(start_run --dir "$1" --files 4 --threads 1 --max-updates 40 \
	    --update-time 0 --rra "$RRA")
	wait_run >/dev/null
	cat "$STATE/runs/$(jget "$r" run_id)/report.json"
}

# ---- a bind mount of a tmpfs's subdirectory, and a self-bind on it
mkdir "$T/fs" "$T/bind"
mnt -t tmpfs -o size=16m stressd-fsrc "$T/fs"
mkdir "$T/fs/sub" "$T/fs/self"
mnt --bind "$T/fs/sub" "$T/bind"
mnt --bind "$T/fs/self" "$T/fs/self"
# Per-mount options of the self-bind differ from the tmpfs's own.
mount -o remount,bind,nosuid,noexec "$T/fs/self"

start_daemon
rep=$(run_in "$T/bind/rrd")
check_target "$rep" "$T/bind/rrd" "$DPID"
assert_eq "$(jget "$rep" target.fs_type)" tmpfs "bind: fs_type"
assert_eq "$(jget "$rep" target.mount_source)" stressd-fsrc "bind: mount_source"
assert_eq "$(jget "$rep" target.mount_point)" "$T/fs" "bind: mount_point"
assert_eq "$(jget "$rep" target.seen_at)" "$T/bind" "bind: seen_at"
assert_eq "$(jget "$rep" target.bind_root)" /sub "bind: bind_root"
log "ok: bind mount: on $T/fs, seen at $T/bind, root /sub"

rep=$(run_in "$T/fs/self/rrd")
check_target "$rep" "$T/fs/self/rrd" "$DPID"
assert_eq "$(jget "$rep" target.mount_point)" "$T/fs" "self-bind: mount_point"
assert_eq "$(jget "$rep" target.seen_at)" "$T/fs/self" "self-bind: seen_at"
assert_eq "$(jget "$rep" target.bind_root)" /self "self-bind: bind_root"
opts=,$(jget "$rep" target.mount_options),
[[ $opts == *,nosuid,* && $opts == *,noexec,* ]] ||
    fail "self-bind: mount_options are not the bind's own: $opts"
log "ok: self-bind: mount point $T/fs, the bind's own options ($opts)"
stop_daemon TERM 30

# ---- a chroot whose root is a directory of a tmpfs, not a mount point
mkdir "$T/cr"
mnt -t tmpfs -o size=16m,nosuid,nodev,noatime stressd-root "$T/cr"
R=$T/cr/root
mkdir -p "$R/proc" "$R/dev" "$R/usr" "$R/etc" "$R/tmp" "$R$T" "$T/cr/other" \
    "$R/other"
for d in bin sbin lib lib32 lib64 libx32; do
	if [ -L "/$d" ]; then
		ln -s "$(readlink "/$d")" "$R/$d"
	elif [ -d "/$d" ]; then
		mkdir "$R/$d"
		bind_ro "/$d" "$R/$d"
	fi
done
bind_ro /usr "$R/usr"
bind_ro /etc "$R/etc"
bind_ro /dev "$R/dev"
mnt -t proc proc "$R/proc"
# The binaries and $T (socket, state) at the same paths inside.
for d in "$(dirname "$STRESSD")" "$(dirname "$STRESSCTL")"; do
	[ -d "$R$d" ] || { mkdir -p "$R$d"; bind_ro "$d" "$R$d"; }
done
mnt --bind "$T" "$R$T"

# The unit test's live part, where no mount line covers /tmp.
UNIT=$(dirname "$(dirname "$STRESSD")")/tests/unit/mountinfo
if [ -x "$UNIT" ]; then
	d=$(dirname "$UNIT")
	[ -d "$R$d" ] || { mkdir -p "$R$d"; bind_ro "$d" "$R$d"; }
	chroot "$R" "$UNIT" >"$T/unit.out" 2>&1 ||
	    fail "the mountinfo unit test fails in a chroot: $(tail -n 20 "$T/unit.out")"
	log "ok: the mountinfo unit test passes in the chroot"
fi

STRESSD_WRAPPER=(chroot "$R")
start_daemon
# No line of the root's tmpfs is visible inside: statfs alone.
rep=$(run_in /rrd)
check_target "$rep" "$R/rrd" "$DPID"
assert_eq "$FS_FROM" statfs "chroot: fs_from"
assert_eq "$(jget "$rep" target.fs_type)" tmpfs "chroot: fs_type"
for k in mount_source mount_point; do
	assert_eq "$(jget "$rep" "target.$k")" null "chroot: $k"
done
# statfs's flags are the mount's own options
assert_eq "$(jget "$rep" target.mount_options | optset)" \
    "$(findmnt -n -o VFS-OPTIONS -M "$T/cr" | optset)" \
    "chroot: mount_options (statfs flags)"
log "ok: chroot: tmpfs by statfs, options $(jget "$rep" target.mount_options)"

# Another mount of the same tmpfs inside the chroot names its source.
mnt --bind "$T/cr/other" "$R/other"
rep=$(run_in /rrd2)
check_target "$rep" "$R/rrd2" "$DPID"
assert_eq "$FS_FROM" device "chroot + same device: fs_from"
assert_eq "$(jget "$rep" target.fs_type)" tmpfs "chroot + same device: fs_type"
assert_eq "$(jget "$rep" target.mount_source)" stressd-root \
    "chroot + same device: mount_source"
assert_eq "$(jget "$rep" target.mount_point)" null \
    "chroot + same device: mount_point"

# A directory on the bind of $T: its mount line is visible (outside the
# chroot it is reached through that bind at $R$T).
rep=$(run_in "$T/rrd3")
check_target "$rep" "$R$T/rrd3" "$DPID"
assert_eq "$(jget "$rep" target.seen_at)" "$T" "chroot, bound \$T: seen_at"
log "ok: chroot: same device by its other mount, \$T by its bind"
