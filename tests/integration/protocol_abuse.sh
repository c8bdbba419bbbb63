#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant
# Raw bytes on the control socket: malformed and hostile input gets an
# error reply and leaves the connection usable (except an over-long line,
# which closes it); a client that never reads blocks nobody and is
# disconnected once its replies stall; 1000 clients at once are all
# served.  After each case the daemon is alive and answers.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# reply_n REPLIES N: the N-th line (from 1) of REPLIES, which must be a
# JSON object.
reply_n() {
	local l
	l=$(sed -n "${2}p" <<<"$1")
	[ -n "$l" ] || fail "reply $2 missing; got: ${1:0:500}"
	is_json "$l" || fail "reply $2 is not one JSON object: ${l:0:300}"
	printf '%s\n' "$l"
}

# expect_ok_version REPLY ID LABEL
expect_ok_version() {
	assert_eq "$(jget "$1" ok)" true "$3: ok"
	assert_eq "$(jget "$1" id)" "$2" "$3: id"
	assert_eq "$(jget "$1" result.protocol)" 1 "$3: result.protocol"
}

# ---- garbage, then a valid request on the same connection
out=$(printf 'this is not json\n{"cmd":"version","id":2}\n' | rawsend -n 2)
expect_error "$(reply_n "$out" 1)" parse_error "garbage line"
expect_ok_version "$(reply_n "$out" 2)" 2 "request after garbage, same connection"
raw_closed && fail "the daemon closed the connection after a parse error"
assert_alive "garbage line"

out=$(printf '{"cmd":"version"\n{"cmd":"version","id":3}\n' | rawsend -n 2)
expect_error "$(reply_n "$out" 1)" parse_error "truncated JSON object"
expect_ok_version "$(reply_n "$out" 2)" 3 "request after truncated JSON"

out=$(printf '\xff\xfe\x80garbage\n{"cmd":"version","id":4}\n' | rawsend -n 2)
assert_eq "$(jget "$(reply_n "$out" 1)" ok)" false "invalid UTF-8: ok"
expect_ok_version "$(reply_n "$out" 2)" 4 "request after invalid UTF-8"
assert_alive "invalid UTF-8"
# invalid UTF-8 inside a string, where JSON itself is well formed
r=$(rawreq "$(printf '{"cmd":"start","args":{"dir":"/tmp/x\xc3("},"id":5}')")
expect_error "$r" parse_error "invalid UTF-8 in dir"
assert_contains "$(jget "$r" error.message)" "UTF-8" "invalid UTF-8 in dir: message"

# ---- the last request before EOF counts without its newline
r=$(printf '{"cmd":"version","id":9}' | socat -t 5 - "UNIX-CONNECT:$SOCK")
expect_ok_version "$r" 9 "a last request without a newline"
out=$(printf '{"cmd":"version","id":10}\n{"cmd":"version","id":11}' |
    socat -t 5 - "UNIX-CONNECT:$SOCK")
expect_ok_version "$(reply_n "$out" 1)" 10 "a request before the last"
expect_ok_version "$(reply_n "$out" 2)" 11 "the last, without a newline"
r=$(printf '{"cmd":"vers' | socat -t 5 - "UNIX-CONNECT:$SOCK")
expect_error "$r" parse_error "a cut-off last request"

# ---- a value that would forge stress.log's lines
r=$(rawreq '{"cmd":"start","args":{"dir":"/tmp/x\nQS:\tsignificantOpsPending=999999, "},"id":6}')
expect_error "$r" bad_argument dir "a newline in dir"
r=$(rawreq '{"cmd":"start","args":{"dir":"/tmp/x","rras":["RRA:MIN:0.5:1:5\n# run 1 stopped"]},"id":7}')
expect_error "$r" bad_argument rras "a newline in an RRA"
assert_alive "control characters in values"

# ---- valid JSON that is not a request
for j in '[1,2,3]' '[]' '{}' '{"id":5}' '{"cmd":5,"id":5}' '{"cmd":null}' \
    '{"cmd":["version"]}' '{"cmd":{"x":1}}' '{"cmd":true}'; do
	r=$(rawreq "$j")
	expect_error "$r" bad_request "request $j"
done
# Top-level scalars: bad_request, though parse_error is tolerated (json-c
# cannot tell a bare null or an unterminated number from bad input).
for j in '"version"' '42' 'null' 'true'; do
	r=$(rawreq "$j")
	assert_eq "$(jget "$r" ok)" false "request $j: ok"
	case $(jget "$r" error.code) in
	bad_request|parse_error) ;;
	*) fail "request $j: error.code $(jget "$r" error.code)" ;;
	esac
done
# The id is echoed even when cmd is missing.
r=$(rawreq '{"id":5}')
assert_eq "$(jget "$r" id)" 5 "missing cmd: id echoed"
assert_alive "non-request JSON"

# ---- unknown command
r=$(rawreq '{"cmd":"frobnicate","id":6}')
expect_error "$r" unknown_command "unknown command"
assert_eq "$(jget "$r" id)" 6 "unknown command: id echoed"
assert_contains "$(jget "$r" error.message)" frobnicate "unknown command: message names it"
# The name is quoted cut to 100 bytes: between characters, so the reply
# stays UTF-8 (51 two-byte letters put byte 100 inside one).
name=unknown$(head -c 51 /dev/zero | tr '\0' x | sed 's/x/é/g')
r=$(rawreq '{"cmd":"'"$name"'","id":7}')
expect_error "$r" unknown_command "a long unknown command"
printf '%s' "$r" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 ||
    fail "reply to a long unknown command is not valid UTF-8: $r"
assert_contains "$(jget "$r" error.message)" "éé...'" "a long unknown command: cut with ..."

# ---- ids echoed: number, string, on success and on error
r=$(rawreq '{"cmd":"version","id":7}')
expect_ok_version "$r" 7 "numeric id"
[ "$(jq -c '.id' <<<"$r")" = 7 ] || fail "numeric id echoed as $(jq -c .id <<<"$r")"
r=$(rawreq '{"cmd":"version","id":"abc-7"}')
[ "$(jq -c '.id' <<<"$r")" = '"abc-7"' ] || fail "string id echoed as $(jq -c .id <<<"$r")"
r=$(rawreq '{"cmd":"stats","id":"s1"}')
assert_eq "$(jget "$r" ok)" true "stats with string id: ok"
assert_eq "$(jget "$r" id)" s1 "stats with string id: id"
r=$(rawreq '{"cmd":"nosuch","id":"e1"}')
assert_eq "$(jget "$r" id)" e1 "error reply: string id echoed"
r=$(rawreq '{"cmd":"version"}')
assert_eq "$(jget "$r" ok)" true "request without id: ok"
# args optional, and an empty args object is fine.
r=$(rawreq '{"cmd":"status","args":{},"id":8}')
assert_eq "$(jget "$r" ok)" true "status with empty args: ok"

# ---- many requests in one write: as many replies, in order
req=$(for i in $(seq 1 100); do printf '{"cmd":"version","id":%d}\n' "$i"; done)
out=$(printf '%s\n' "$req" | rawsend -n 100)
ids=$(jq -s -c 'map(select(.ok == true) | .id)' <<<"$out") ||
    fail "pipelined requests: replies are not JSON"
assert_eq "$ids" "$(jq -n -c '[range(1; 101)]')" "pipelined requests: ids of ok replies in order"

# ---- a request split over several writes
out=$( { printf '{"cmd":'; sleep 0.3; printf '"versi'; sleep 0.3
    printf 'on","id":9}'; sleep 0.3; printf '\n'; sleep 2; } |
    timeout 20 socat -t 2 - "UNIX-CONNECT:$SOCK" | head -n 1) || true
[ -n "$out" ] || fail "no reply to a request split over several writes"
expect_ok_version "$out" 9 "request split over several writes"

# ---- a request, then EOF (what `echo ... | socat` or `nc -U` does)
out=$(printf '{"cmd":"version","id":10}\n' |
    timeout 20 socat -t 5 - "UNIX-CONNECT:$SOCK") || true
[ -n "$out" ] || fail "no reply when the client half-closes after its request"
expect_ok_version "$(reply_n "$out" 1)" 10 "request followed by EOF"

# ---- half a line, then close
printf '{"cmd":"vers' | timeout 20 socat -t 1 - "UNIX-CONNECT:$SOCK" \
    >/dev/null 2>&1 || true
assert_alive "half a line then close"
printf '{"cmd":"version","id":1' | rawsend -n 1 -t 1 >/dev/null
assert_alive "half a line then abrupt close"

# ---- NUL bytes
out=$(printf '{"cmd":"ver\0sion","id":11}\n{"cmd":"version","id":12}\n' | rawsend -n 2)
assert_eq "$(jget "$(reply_n "$out" 1)" ok)" false "NUL inside a line: ok"
expect_ok_version "$(reply_n "$out" 2)" 12 "request after a line with a NUL"
out=$(printf '\0\0\0\n{"cmd":"version","id":13}\n' | rawsend -n 2)
assert_eq "$(jget "$(reply_n "$out" 1)" ok)" false "line of NULs: ok"
expect_ok_version "$(reply_n "$out" 2)" 13 "request after a line of NULs"
out=$(printf '{"cmd":"version","id":14}\0\n{"cmd":"version","id":15}\n' | rawsend -n 2)
expect_ok_version "$(reply_n "$out" 2)" 15 "request after a trailing NUL"
assert_alive "NUL bytes"

# ---- deep nesting
deep=$(printf '%*s' 10000 '' | tr ' ' '[')
out=$(printf '%s\n{"cmd":"version","id":16}\n' "$deep" | rawsend -n 2)
r=$(reply_n "$out" 1)
assert_eq "$(jget "$r" ok)" false "10000 nested arrays: ok"
case $(jget "$r" error.code) in
parse_error|bad_request) ;;
*) fail "10000 nested arrays: code $(jget "$r" error.code)" ;;
esac
expect_ok_version "$(reply_n "$out" 2)" 16 "request after deep nesting"
deep=$(printf '%*s' 5000 '' | sed 's/ /{"a":/g')
out=$(printf '{"cmd":"version","id":17,"args":%s\n{"cmd":"version","id":18}\n' \
    "$deep" | rawsend -n 2)
assert_eq "$(jget "$(reply_n "$out" 1)" ok)" false "deeply nested args: ok"
expect_ok_version "$(reply_n "$out" 2)" 18 "request after deeply nested args"
assert_alive "deep nesting"

# ---- line length: just under 64 KiB is served; over it, too_long + close
# (padded with JSON white space: a string id is capped at 256 bytes, since
# it is echoed and a reply must fit a protocol line too)
sp=$(printf '%*s' 60000 '')
r=$(rawreq '{"cmd":"version",'"$sp"'"id":"x60k"}')
assert_eq "$(jget "$r" ok)" true "60000-byte request line: ok"
assert_eq "$(jget "$r" id)" x60k "60000-byte line: id echoed"
id=$(head -c 257 /dev/zero | tr '\0' a)
r=$(rawreq '{"cmd":"version","id":"'"$id"'"}')
expect_error "$r" bad_request "257-byte id"
assert_eq "$(jget "$r" error.field)" id "257-byte id: field"

# Error replies echo the client's keys, yet stay one protocol line, even
# when every byte of the key escapes to six.
long_key=$(head -c 65000 /dev/zero | tr '\0' a)
ctl_key=$(for ((i = 0; i < 10000; i++)); do printf '\\u0001'; done)
# ... and stay valid UTF-8 where they are cut (30,001 two-byte letters).
utf_key=$(head -c 30001 /dev/zero | tr '\0' x | sed 's/x/é/g')
for key in "$long_key" "$ctl_key" "$utf_key"; do
	r=$(rawreq '{"cmd":"stats","args":{"'"$key"'":1}}')
	expect_error "$r" bad_argument "an unknown ${#key}-character key"
	assert_num "$(printf '%s' "$r" | wc -c)" '<' 65536 \
	    "reply to an unknown ${#key}-character key: length"
	printf '%s' "$r" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 ||
	    fail "reply to an unknown ${#key}-character key is not valid UTF-8"
done

pad=$(head -c 71680 /dev/zero | tr '\0' x)
out=$(printf '{"cmd":"version","id":"%s"}\n{"cmd":"version","id":19}\n' "$pad" |
    rawsend -n 2 -t 10)
expect_error "$(reply_n "$out" 1)" too_long "70 KiB line"
[ "$(wc -l <<<"$out")" -eq 1 ] || fail "70 KiB line: more than one reply: ${out:0:300}"
raw_closed || fail "70 KiB line: the connection was not closed"
assert_alive "70 KiB line"

# Over the limit without any newline: the daemon must not wait for one.
out=$(printf '%s' "$pad" | rawsend -n 2 -t 10)
expect_error "$(reply_n "$out" 1)" too_long "70 KiB without a newline"
[ "$(wc -l <<<"$out")" -eq 1 ] ||
    fail "70 KiB without a newline: more than one reply: ${out:0:300}"
raw_closed || fail "70 KiB without a newline: the connection was not closed"
assert_alive "70 KiB without a newline"

# A 10 MB line: answered too_long after the first 64 KiB, closed, and the
# daemon holds none of the rest.
build_tool sockclient
out=$("$T/sockclient" bigline "$SOCK" 10000000 2>"$T/big.err")
expect_error "$(reply_n "$out" 1)" too_long "10 MB line"
[ "$(wc -l <<<"$out")" -eq 1 ] || fail "10 MB line: more than one reply: ${out:0:300}"
log "10 MB line: $(cat "$T/big.err") before the daemon closed"
assert_alive "10 MB line"

# ---- a client that never reads its replies
yes '{"cmd":"stats"}' | head -n 20000 >"$T/flood.req"
# (its cat dies of SIGPIPE once it is disconnected: not a failure)
( trap - ERR; echo "$BASHPID" >"$T/flood.pid"; cat "$T/flood.req" || true
  exec sleep 120 ) |
    socat -u -b 262144 - "UNIX-CONNECT:$SOCK" 2>"$T/flood.err" &
flood_socat=$!
HELPER_PIDS+=("$flood_socat")
deadline=$((SECONDS + 10))
until [ -s "$T/flood.pid" ]; do
	[ "$SECONDS" -lt "$deadline" ] || fail "flood writer did not start"
	sleep 0.05
done
HELPER_PIDS+=("$(cat "$T/flood.pid")")
sleep 1	# let the daemon read what it will and fill the socket
pid_alive "$flood_socat" || fail "the non-reading client died: $(cat "$T/flood.err")"
# Meanwhile other clients are served promptly...
for i in 1 2 3 4 5; do
	rc=0
	timeout -k 1 2 "$STRESSCTL" --socket "$SOCK" status >/dev/null 2>&1 || rc=$?
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
	    fail "status took over 2 s while a client does not read (try $i)"
	[ "$rc" -eq 0 ] || fail "status failed ($rc) while a client does not read"
	sleep 0.2
done
# ... and a run's writers are not held up.
start_run --dir "$T/flood-run" --files 50 --threads 2 --write-threads 2 \
    --max-updates 2000 --update-time 0 --rra "$RRA" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "run beside a non-reading client: state"
scan=$(rrd_scan "$T/flood-run" 50)
assert_eq "$(rrd_sum "$scan")" 2000 "run beside a non-reading client: updates on disk"
timeout -k 1 2 "$STRESSCTL" --socket "$SOCK" version >/dev/null ||
    fail "version did not answer within 2 s while a client does not read"
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$DPID/status")
log "daemon RSS with a non-reading client: $rss kB"
assert_num "$rss" '<' 200000 "daemon RSS (kB) with a non-reading client"
# Its replies have not moved for CONTROL_WRITE_STALL_S (10 s): it is
# disconnected, which its socat sees as a failed write.
deadline=$((SECONDS + 30))
until grep -q 'has not read its replies for 10 s .*disconnecting' "$DLOG"; do
	[ "$SECONDS" -lt "$deadline" ] ||
	    fail "a client that never reads was not disconnected within 30 s"
	sleep 0.2
done
kill "$flood_socat" "$(cat "$T/flood.pid")" 2>/dev/null || true
wait "$flood_socat" 2>/dev/null || true
assert_alive "a client that never reads"

# ---- 1000 clients connected at once, all answered
out=$("$T/sockclient" many "$SOCK" 1000 "$DPID" 2>&1) || fail "1000 clients: $out"
log "$out"
assert_alive "1000 clients at once"

log "PASS"
