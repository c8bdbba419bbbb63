#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# README's "Run it as a service", the way a user meets it (issue 14,
# point 4): a minimal Debian 12 root (debootstrap --variant=minbase) with
# the README's first set-up packages and systemd, a fresh clone of this
# tree's HEAD in it, booted with systemd-nspawn (systemd as PID 1); inside,
# the README's service commands run as written, then
#  - `stressctl start --profile kif` succeeds and its files land in
#    /srv/rrd-stress/kif as user stressd; stopped, its record is whole;
#  - what README says of the service holds: the socket is root:stressd
#    0660 (after the first start and after a restart), the run's RRD
#    files, metrics.rrd and records are 0640 and their directories 0750
#    (UMask=0027), and the journal gives the true reason for the
#    O_NOFOLLOW walk (RestrictSUIDSGID='s filter, on a kernel with openat2);
#  - a user added to group stressd (as the README says) runs the quick
#    profile to its end and reads its report;
#  - /srv/rrd-stress made again after the service started: the error
#    says that a restart is needed, and after `systemctl restart stressd`
#    the run starts.
# Each part is timed.  Needs root, debootstrap, systemd-nspawn
# (systemd-container), git and a Debian mirror (MIRROR, default
# deb.debian.org).  KEEP=1 keeps the root; ROOT=DIR reuses a debootstrapped
# one.  `make check-service` runs it; it is no part of `make check`.
set -eEu
shopt -s inherit_errexit
top=$(cd "$(dirname "$0")/../.." && pwd)
# The host's Debian mirror (the first non-security one in its apt
# sources), else deb.debian.org.
host_mirror() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	    /etc/apt/sources.list.d/*.sources 2>/dev/null |
	    awk '/^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {
		print $i; break } } /^URIs:/ { print $2 }' |
	    grep -v -e security -e '^$' | grep '/debian' | head -n 1
}
MIRROR=${MIRROR:-$(host_mirror || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
NAME=service
BOOT_TIMEOUT=${BOOT_TIMEOUT:-180}

log() { printf '%s: %s\n' "$NAME" "$*"; }
fail() { printf 'FAIL: %s: %s\n' "$NAME" "$*" >&2; exit 1; }
# What this machine cannot do (no mirror, no container boots here) is no
# failure of the service path: a skip, with the reason.
skip() { printf 'SKIP: %s: %s\n' "$NAME" "$*" >&2; exit 77; }
trap 'printf "FAIL: %s: line %s: command exited %s: %s\n" "$NAME" \
    "$LINENO" "$?" "$BASH_COMMAND" >&2' ERR

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, systemd-nspawn)"
for t in debootstrap:debootstrap systemd-nspawn:systemd-container \
    git:git unshare:util-linux nsenter:util-linux pgrep:procps jq:jq; do
	command -v "${t%%:*}" >/dev/null ||
	    fail "${t%%:*} not found (apt-get install ${t#*:})"
done
[ -d "$top/.git" ] || [ -f "$top/.git" ] || fail "$top is not a git clone"

phase_start=$SECONDS
# phase WHAT: log how long the part since the last phase call took.
phase() {
	log "$1: $((SECONDS - phase_start)) s"
	phase_start=$SECONDS
}

NSPAWN_PID=
keep=${KEEP:-0}
if [ -z "${ROOT:-}" ]; then
	ROOT=$(mktemp -d /var/tmp/stressd-service.XXXXXX)
	chmod 755 "$ROOT"	# the container's /, which mktemp made 0700
	fresh=1
else
	fresh=0
	keep=1
fi
cleanup() {
	local rc=$?
	trap - ERR
	if [ "$rc" -ne 0 ] && [ -n "${C:-}" ]; then
		echo "---- the journal of stressd in the container"
		ct 'journalctl -b -u stressd.service -u stressd.socket \
		    --no-pager | tail -n 40' || true
	fi
	if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
		# nspawn turns SIGTERM into an orderly shutdown of the container.
		kill -TERM "$NSPAWN_PID" 2>/dev/null || true
		for _ in $(seq 600); do
			kill -0 "$NSPAWN_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$NSPAWN_PID" 2>/dev/null || true
		wait "$NSPAWN_PID" 2>/dev/null || true
	fi
	if [ "$rc" -ne 0 ] && [ -f "$ROOT.console" ]; then
		echo "---- last 40 lines of the container's console"
		tail -n 40 "$ROOT.console" | sed 's/\x1b\[[0-9;]*m//g'
	fi
	if [ "$keep" = 1 ]; then
		log "kept $ROOT"
	else
		rm -rf --one-file-system "$ROOT" "$ROOT".*
	fi
	exit "$rc"
}
trap cleanup EXIT

# The README's first set-up command's packages, and systemd, which every
# Debian 12 host has and a minbase root has not.
pkgs=$(awk '/^## Set up/{s=1} s && /^    apt-get/{sub(/.*install -y /, "");
    sub(/ &&.*/, ""); print; exit}' "$top/README.md")
[ -n "$pkgs" ] || fail "no set-up command in README.md"
if [ "$fresh" = 1 ]; then
	debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" \
	    >"$ROOT.debootstrap.log" 2>&1 ||
	    skip "debootstrap: $(tail -5 "$ROOT.debootstrap.log")"
	rm -f "$ROOT.debootstrap.log"
	phase "debootstrap --variant=minbase bookworm ($MIRROR)"
	# shellcheck disable=SC2086  # a list of package names
	chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	    DEBIAN_FRONTEND=noninteractive sh -c "apt-get -q update &&
	    apt-get install -y -q $pkgs systemd" \
	    >"$ROOT.apt.log" 2>&1 || fail "apt-get: $(tail -5 "$ROOT.apt.log")"
	rm -f "$ROOT.apt.log"
	phase "apt-get install (README's first set-up packages, systemd)"
fi
rm -rf "$ROOT/root/stressd"
# A reused root starts with no runs: a file an earlier tree made would be
# reused by the kif run, and checked as if this tree had made it.
[ "$fresh" = 1 ] || rm -rf "$ROOT/srv/rrd-stress" "$ROOT/var/lib/stressd"
git clone -q "$top" "$ROOT/root/stressd"
log "clone of $(git -C "$top" log --oneline -1)"

# Boot.  Without a system bus or machined (a CI container), nspawn must
# neither register the machine nor ask for a scope; it removes its
# /run/systemd/nspawn/propagate dir at exit only on a tmpfs (a /run on the
# disk gets "Attempted to remove disk file system"), hence one of its own
# in a private mount namespace.
mkdir -p /run/systemd/nspawn
unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs \
    /run/systemd/nspawn && exec systemd-nspawn --register=no --keep-unit \
    -q -D "$1" -b --console=read-only' sh "$ROOT" >"$ROOT.console" 2>&1 \
    </dev/null &
NSPAWN_PID=$!
C=
deadline=$((SECONDS + BOOT_TIMEOUT))
while [ -z "$C" ]; do
	kill -0 "$NSPAWN_PID" 2>/dev/null ||
	    skip "systemd-nspawn exited: $(tail -5 "$ROOT.console")"
	[ "$SECONDS" -lt "$deadline" ] || skip "no systemd in the container"
	for p in $(pgrep -P "$NSPAWN_PID" || true); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = systemd ] && C=$p
	done
	sleep 0.2
done
# ct CMD: CMD by bash inside the container, as root, in the clone.
ct() {
	nsenter -t "$C" -a env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    HOME=/root LANG=C.UTF-8 bash -c "cd /root/stressd && $1"
}
# systemctl reaches PID 1 by /run/systemd/private (no D-Bus in a minbase
# root), which systemd makes a moment after it starts: before that,
# is-system-running says "Failed to connect to bus" at once, --wait or not.
until ct 'test -S /run/systemd/private'; do
	kill -0 "$NSPAWN_PID" 2>/dev/null ||
	    skip "systemd-nspawn exited: $(tail -5 "$ROOT.console")"
	[ "$SECONDS" -lt "$deadline" ] || skip "no /run/systemd/private"
	sleep 0.2
done
state=$(ct "timeout $BOOT_TIMEOUT systemctl is-system-running --wait" ||
    true)
case $state in
running|degraded) ;;
*) skip "the container did not boot: '$state'" ;;
esac
log "booted: systemd $(ct 'systemctl --version | head -n 1'), $state"
phase "boot"

# The README's service commands, each as written.
cmds=$(awk '/^## Run it as a service/{s=1; next} s && /^## /{exit}
    s && /^    /{sub(/^    /, ""); print; c=1; next} s && c && NF{exit}' \
    "$top/README.md")
[ -n "$cmds" ] || fail "no commands under 'Run it as a service' in README.md"
while IFS= read -r cmd; do
	log "+ $cmd"
	ct "$cmd" >"$ROOT.cmd.log" 2>&1 ||
	    fail "README's '$cmd' failed: $(tail -n 8 "$ROOT.cmd.log")"
done <<<"$cmds"
rm -f "$ROOT.cmd.log"
phase "README's service commands"
# What make install made: the run dir of the shipped config, for stressd.
[ "$(ct 'stat -c %a:%U:%G /srv/rrd-stress')" = 750:stressd:stressd ] ||
    fail "/srv/rrd-stress: $(ct 'ls -ld /srv/rrd-stress')"

# jin JQ CMD: CMD's JSON output through jq (in the container, no jq
# there: read back here).
jin() { ct "$2" | jq -r "$1"; }

# ---- the kif profile, started by the README's last command, as root
deadline=$((SECONDS + 300))
until [ "$(jin '.updates_completed' 'stressctl --json stats')" -ge 1000 ]; do
	[ "$SECONDS" -lt "$deadline" ] ||
	    fail "kif: under 1000 updates in 300 s: $(ct 'stressctl stats')"
	sleep 2
done
phase "kif: start to 1000 updates"
# README: the socket is root:stressd 0660 once the service has started
# (systemd chowns a RuntimeDirectory='s content to User= at each start);
# RRD files are 0640 under UMask=0027 (librrd 1.7.2 makes them 0644
# whatever the umask); the journal names the true reason for the walk.
sock=$(ct 'stat -c %U:%G:%a /run/stressd/stressd.sock')
[ "$sock" = root:stressd:660 ] || fail "the socket is $sock, not root:stressd:660"
bad=$(ct 'find /srv/rrd-stress/kif -name "*.rrd" ! -perm 0640 \
    -printf "%m %p\n" | head -n 3')
[ -z "$bad" ] || fail "kif RRD files not 0640: $bad"
how=$(ct 'journalctl -b -u stressd.service --no-pager -o cat |
    grep -m 1 "held open; its files are reached beneath"')
log "journal: $how"
# RestrictSUIDSGID=yes refuses every openat2 (ENOSYS): a walk, always.
IFS=. read -r kmaj kmin _ < <(uname -r)
if [ "$kmaj" -gt 5 ] || { [ "$kmaj" -eq 5 ] && [ "$kmin" -ge 6 ]; }; then
	want="seccomp filter refuses openat2 with ENOSYS"
else
	want="has no openat2"
fi
case $how in
*"O_NOFOLLOW walk"*"$want"*) ;;
*) fail "the journal does not say '$want': $how" ;;
esac
owner=$(ct 'stat -c %U:%G /srv/rrd-stress/kif; find /srv/rrd-stress/kif \
    -name "*.rrd" ! -user stressd | head -n 3')
[ "$owner" = stressd:stressd ] || fail "kif files not stressd's: $owner"
ct 'stressctl stop >/dev/null'
s=$(ct 'stressctl --json wait')
id=$(jq -r .run_id <<<"$s")
log "kif run $id: $(jq -r .state <<<"$s"), $(jq -r .updates_completed \
    <<<"$s") updates, reason: $(jq -r .reason <<<"$s")"
[ "$(jq -r .state <<<"$s")" = stopped ] || fail "kif run: $s"
ct "cat /var/lib/stressd/runs/$id/report.json" |
    jq -e '.state == "stopped"' >/dev/null || fail "report.json of run $id"
rec=$(ct "tail -n 1 /var/lib/stressd/runs/$id/stress.log")
case $rec in
"# run $id stopped"*) ;;
*) fail "kif run $id: stress.log ends: $rec" ;;
esac
# Records 0640, directories 0750 (UMask=0027), metrics.rrd included.
bad=$(ct "find /var/lib/stressd/runs/$id /srv/rrd-stress/kif \\( \\( \
    -type f ! -perm 0640 \\) -o \\( -type d ! -perm 0750 \\) \\) \
    -printf '%m %p\\n' | head -n 5")
[ -z "$bad" ] || fail "run $id: not 0640 (files) or 0750 (dirs): $bad"
f=$(ct 'find /srv/rrd-stress/kif -name "*.rrd" | head -n 1')
ct "rrdtool lastupdate $f" >/dev/null || fail "rrdtool cannot read $f"
phase "kif: stop, wait, record"

# ---- a member of group stressd runs the quick profile
ct 'id alice >/dev/null 2>&1 || useradd -m alice; usermod -aG stressd alice'
out=$(ct 'runuser -u alice -- stressctl start --profile quick 2>&1') ||
    fail "alice: stressctl start --profile quick: $out"
s=$(ct 'runuser -u alice -- stressctl --json wait')
[ "$(jq -r .state <<<"$s")" = done ] &&
    [ "$(jq -r .updates_completed <<<"$s")" = 2000 ] ||
    fail "quick run: $s"
id=$(jq -r .run_id <<<"$s")
ct "runuser -u alice -- stressctl report $id >/dev/null" ||
    fail "alice cannot read the report of run $id"
ct "runuser -u alice -- cat /var/lib/stressd/runs/$id/report.json" |
    jq -e '.state == "done"' >/dev/null || fail "report.json of run $id"
phase "quick profile as a group member, to its end"

# ---- systemctl reload: a profile added to stressd.conf, same process
pid=$(ct 'systemctl show -P MainPID stressd.service')
ct 'cp etc/stressd.conf /etc/stressd/stressd.conf &&
    printf "\n[profile tiny]\ndir = /srv/rrd-stress/tiny\nfiles = 10\n\
max_updates = 100\nupdate_time = 0\n" >>/etc/stressd/stressd.conf'
out=$(ct 'systemctl reload stressd.service 2>&1') ||
    fail "systemctl reload stressd: $out"
out=$(ct 'stressctl start --profile tiny 2>&1 && stressctl wait >/dev/null') ||
    fail "a profile added before the reload: $out"
[ "$(ct 'systemctl show -P MainPID stressd.service')" = "$pid" ] ||
    fail "the reload restarted stressd"
phase "systemctl reload"

# ---- /srv/rrd-stress made again after the service started
ct 'systemctl stop stressd.service 2>/dev/null && rm -rf /srv/rrd-stress &&
    systemctl start stressd.service && systemd-tmpfiles --create'
out=$(ct 'stressctl start --profile kif 2>&1') &&
    fail "start in a directory made after the service: $out" || true
case $out in
*"systemctl restart stressd"*) log "as expected: $out" ;;
*) fail "no restart hint in: $out" ;;
esac
ct 'systemctl restart stressd.service'
out=$(ct 'stressctl start --profile kif 2>&1') ||
    fail "after the restart: $out"
ct 'stressctl stop >/dev/null && stressctl wait >/dev/null'
sock=$(ct 'stat -c %U:%G:%a /run/stressd/stressd.sock')
[ "$sock" = root:stressd:660 ] ||
    fail "after a restart, the socket is $sock, not root:stressd:660"
phase "directory made after the start: hint, restart"
log "ok"
