#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# A client that reads a large reply slowly (here `runs` over 1,500
# records, well past 256 KiB) gets all of it, and then the answer to the
# request it pipelined behind: no disconnect.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"

start_run --dir "$T/rrd" --files 10 --max-updates 100 --update-time 0 \
    --rra "$RRA" >/dev/null
wait_run >/dev/null
stop_daemon TERM 20
for i in $(seq 2 1500); do
	mkdir "$STATE/runs/$i"
	cp "$STATE/runs/1/report.json" "$STATE/runs/$i/"
done
start_daemon

out=$(python3 - "$SOCK" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(sys.argv[1])
s.sendall(b'{"cmd":"runs","id":1}\n{"cmd":"version","id":2}\n')
time.sleep(0.5)
buf = b""
s.settimeout(8)
while buf.count(b"\n") < 2:
    d = s.recv(16384)
    if not d:
        break
    buf += d
    time.sleep(0.002)
print(len(buf), buf.count(b"\n"), buf.split(b"\n")[1][:60].decode())
PY
)
read -r bytes lines second <<<"$out"
[ "$bytes" -gt 262144 ] || fail "the runs reply is only $bytes bytes: no test"
assert_eq "$lines" 2 "replies received (bytes $bytes)"
assert_contains "$second" '"id":2' "the pipelined version reply"
assert_alive
log "ok"
