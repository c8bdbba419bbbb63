#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The configuration file through the daemon: --check-config on every
# golden file and on the shipped etc/stressd.conf, allowed_dirs (escapes
# by .. and symlinks refused with denied), profiles with command-line
# overrides, and SIGHUP (a good file applies to later runs, a bad one is
# logged and changes nothing).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

# ---- golden files, as the admin would run them
G=$TOP_SRCDIR/tests/config
n=0
for conf in "$G"/*.conf; do
	name=$(basename "$conf" .conf)
	rc=0
	out=$(cd "$G" && "$STRESSD" --config "$name.conf" --check-config \
	    2>"$T/err") || rc=$?
	if [ -f "$G/$name.out" ]; then
		assert_eq "$rc" 0 "$name: exit status"
		assert_eq "$out" "$(cat "$G/$name.out")" "$name: --check-config output"
	else
		assert_eq "$rc" 2 "$name: exit status"
		assert_eq "$(sed 's/^stressd: //' "$T/err")" "$(cat "$G/$name.err")" \
		    "$name: error line"
	fi
	n=$((n + 1))
done
assert_num "$n" '>=' 20 "golden files found"
"$STRESSD" --config "$TOP_SRCDIR/etc/stressd.conf" --check-config >/dev/null ||
    fail "the shipped etc/stressd.conf does not pass --check-config"
# Shipped with allowed_targets: without it whoever may start runs can make
# stressd connect to any socket it can reach, tell which exist and see
# the first line each answers.
grep -q '^allowed_targets = ' "$TOP_SRCDIR/etc/stressd.conf" ||
    fail "the shipped etc/stressd.conf leaves allowed_targets unset"
# the command line wins over the file, and --check-config shows it
out=$("$STRESSD" --config "$G/full.conf" --socket /tmp/override.sock --check-config)
grep -q '^socket = /tmp/override.sock$' <<<"$out" ||
    fail "--socket does not override the file: $(grep '^socket' <<<"$out")"
# --memory-max below the floor: --check-config refuses it as a start does
# (exit 2, the same message), and prints the smallest one it takes.
for m in 63M 64K 67108863; do
	rc=0
	chk=$("$STRESSD" --config "$G/full.conf" --memory-max "$m" \
	    --check-config 2>&1) || rc=$?
	assert_eq "$rc" 2 "--check-config --memory-max $m: $chk"
	rc=0
	st=$(env -u INVOCATION_ID "$STRESSD" --config "$G/full.conf" \
	    --socket "$T/mm.sock" --memory-max "$m" 2>&1) || rc=$?
	assert_eq "$rc" 2 "stressd --memory-max $m: $st"
	assert_eq "$chk" "$st" "--check-config and a start on --memory-max $m"
	assert_contains "$chk" "--memory-max" "--check-config --memory-max $m"
	[ ! -e "$T/mm.sock" ] || fail "stressd --memory-max $m made its socket"
done
out=$("$STRESSD" --config "$G/full.conf" --memory-max 64M --check-config)
grep -q '^memory_max = 67108864$' <<<"$out" ||
    fail "--memory-max 64M: $(grep '^memory_max' <<<"$out")"

# ---- a daemon with allowed_dirs and profiles
A=$T/allowed
mkdir -p "$A" "$T/elsewhere"
ln -s "$T/elsewhere" "$A/link"
cat >"$T/stressd.conf" <<CONF
allowed_dirs = $A
allowed_targets = unix:$T/ok.sock, 127.0.0.1:42217
[profile small]
files = 20
max_updates = 400
update_time = 0
rras = $RRA
dir = $A/small
CONF
start_daemon --config "$T/stressd.conf"
grep -q "no configuration file" "$DLOG" && fail "the config was not read"
for bad in "$T/elsewhere/x" "$A/../elsewhere/x" "$A/link/x"; do
	r=$(printf '{"cmd":"start","args":{"dir":"%s","files":5}}\n' "$bad" |
	    rawsend -n 1)
	expect_error "$r" denied dir "start in $bad"
done
[ -z "$(ls "$T/elsewhere")" ] || fail "a denied run wrote into $T/elsewhere"
# allowed_targets: another rrdcached is denied; a listed one passes the
# check (and then fails to connect: nobody listens there)
r=$(printf '{"cmd":"start","args":{"dir":"%s","files":5,"target":"rrdcached:unix:%s"}}\n' \
    "$A/t" "$T/other.sock" | rawsend -n 1)
expect_error "$r" denied target "start with an rrdcached not allowed"
assert_contains "$(jget "$r" error.message)" "allowed_targets" \
    "denied target: message"
r=$(printf '{"cmd":"start","args":{"dir":"%s","files":5,"target":"rrdcached:unix:%s"}}\n' \
    "$A/t" "$T/ok.sock" | rawsend -n 1)
expect_error "$r" bad_argument target "start with an allowed, absent rrdcached"
assert_contains "$(jget "$r" error.message)" "connect" \
    "allowed target: the connect failed"

s=$(start_run --profile small --files 10)
w=$(wait_run)
assert_eq "$(jget "$w" state)" done "profile run"
p=$(ctlj status | jq -c .run.params)
assert_eq "$(jget "$p" files)" 10 "--files overrides the profile"
assert_eq "$(jget "$p" max_updates)" 400 "max_updates from the profile"
assert_eq "$(jget "$p" dir)" "$A/small" "dir from the profile"
expect_error "$(printf '{"cmd":"start","args":{"profile":"nope"}}\n' | rawsend -n 1)" \
    bad_argument profile "unknown profile"

# ---- SIGHUP: a good file for later runs, a bad one changes nothing
cat >>"$T/stressd.conf" <<CONF
[profile other]
files = 5
max_updates = 50
update_time = 0
rras = $RRA
dir = $A/other
CONF
kill -HUP "$DPID"
wait_for_log() { for _ in $(seq 50); do grep -q "$1" "$DLOG" && return 0; sleep 0.1; done; return 1; }
wait_for_log 'SIGHUP: re-read' || fail "no reload logged"
start_run --profile other >/dev/null
assert_eq "$(jget "$(wait_run)" updates_completed)" 50 "a profile added by SIGHUP"
echo 'bogus_key = 1' >>"$T/stressd.conf"
kill -HUP "$DPID"
wait_for_log "keeping the configuration in force" || fail "bad file on SIGHUP not logged"
grep -q "stressd.conf:[0-9]*: .*bogus_key" "$DLOG" || fail "no FILE:LINE for the bad key"
start_run --profile other >/dev/null
wait_run >/dev/null
assert_alive "SIGHUP with a bad file"
log "ok: $n golden files, allowed_dirs, profiles, SIGHUP"
