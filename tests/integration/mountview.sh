# shellcheck shell=bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The kernel's own view of the filesystem under a directory, to check a
# record's "target" against, sourced after lib.sh.  Nothing here asks
# findmnt or walks paths: the mount ID of an open descriptor
# (/proc/PID/fdinfo) names the mount line exactly, in a chroot, a
# container or on a bind mount alike, and statfs (stat -f) gives the type
# even when no line is visible.

# mnt_id_of DIR: the ID of the mount DIR is reached through.
mnt_id_of() {
	local fd id
	exec {fd}<"$1"
	id=$(awk '$1 == "mnt_id:" { print $2 }' "/proc/$BASHPID/fdinfo/$fd")
	exec {fd}<&-
	printf '%s\n' "$id"
}

# mount_line ID [PID]: that mount's line in PID's mountinfo (paths as PID
# sees them; default this shell), or nothing when PID cannot see it.
mount_line() {
	awk -v id="$1" '$1 == id' "/proc/${2:-$BASHPID}/mountinfo"
}

# mline LINE WHAT: a field of a mountinfo line: root, point, options
# (per mount), devno, fstype, source, super (after the " - ").
mline() {
	awk -v w="$2" '{
		for (i = 7; $i != "-"; i++) ;
		if (w == "devno") print $3; else if (w == "root") print $4
		else if (w == "point") print $5; else if (w == "options") print $6
		else if (w == "fstype") print $(i + 1)
		else if (w == "source") print $(i + 2)
		else if (w == "super") print $(i + 3)
	}' <<<"$1"
}

# A comma list as a sorted set, without empty items.
optset() { tr ',' '\n' | grep -v '^$' | sort -u | paste -sd, || true; }

# statfs's name for DIR's type as a record states it: coreutils' one
# "ext2/ext3" for the magic ext2, ext3 and ext4 share is "ext2/ext3/ext4".
statfs_type() {
	local t
	t=$(stat -f -c %T "$1")
	[ "$t" = ext2/ext3 ] && t=ext2/ext3/ext4
	printf '%s\n' "$t"
}

# check_target REPORT_JSON DIR [PID]: the record's target agrees with the
# kernel: DIR is the directory as this shell reaches it (outside a chroot
# the daemon PID runs in), PID the daemon (default: this shell's view).
# Sets FS_FROM to the record's fs_from.
check_target() {
	local rep=$1 dir=$2 pid=${3:-$BASHPID} line want
	FS_FROM=$(jget "$rep" target.fs_from)
	assert_eq "$(jget "$rep" target.fs_magic)" "0x$(stat -f -c %t "$dir")" \
	    "target.fs_magic (stat -f)"
	line=$(mount_line "$(mnt_id_of "$dir")" "$pid")
	if [ -z "$line" ]; then
		# The directory's own mount is invisible (a chroot's root
		# that is no mount point): statfs, or another line of the
		# same device.
		[ "$FS_FROM" = statfs ] || [ "$FS_FROM" = device ] ||
		    fail "target.fs_from: $FS_FROM, but no mount line is visible"
		[ "$FS_FROM" = device ] ||
		    assert_eq "$(jget "$rep" target.fs_type)" \
		    "$(statfs_type "$dir")" "target.fs_type (statfs)"
		for k in seen_at bind_root; do
			assert_eq "$(jget "$rep" "target.$k")" null "target.$k"
		done
		return 0
	fi
	assert_eq "$FS_FROM" mount "target.fs_from"
	assert_eq "$(jget "$rep" target.fs_type)" "$(mline "$line" fstype)" \
	    "target.fs_type (mountinfo)"
	assert_eq "$(jget "$rep" target.mount_source)" "$(mline "$line" source)" \
	    "target.mount_source (mountinfo)"
	assert_eq "$(jget "$rep" target.seen_at)" "$(mline "$line" point)" \
	    "target.seen_at (mountinfo)"
	assert_eq "$(jget "$rep" target.bind_root)" "$(mline "$line" root)" \
	    "target.bind_root (mountinfo)"
	want=$( (mline "$line" options | tr ',' '\n'
	    mline "$line" super | tr ',' '\n' | grep -v -x -E 'rw|ro') | optset)
	assert_eq "$(jget "$rep" target.mount_options | optset)" "$want" \
	    "target.mount_options (as a set)"
}
