#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The daemon's capacity search as a job: bad input refused naming the key
# with nothing created; a short search over two directories (status,
# stats, /metrics and systemd's STATUS while it runs, start refused as
# busy, capacity.json with every step and each directory's grid, each
# step an ordinary run record tagged "capacity", the files' update
# counts by rrdtool = the steps' updates_completed); a stop mid-step
# (the record stopped, its steps kept); SIGTERM mid-step; kill -9
# mid-step (marked interrupted at the next start).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

FILES=150
RRA=RRA:AVERAGE:0.5:1:10
NS=$T/notify.sock
notify_listen "$NS" "$T/notify.out"
NOTIFY_SOCKET=$NS start_metrics_daemon

# capreq ARGS_JSON: one `capacity` request, its reply line.
capreq() {
	rawreq "{\"cmd\": \"capacity\", \"args\": ${1//$'\n'/ }}"
}

records() { find "$STATE/runs" -mindepth 1 -maxdepth 1 | wc -l; }

# ---- 1. bad input: the key named, nothing created
D1=$T/a
D2=$T/b
base="\"files\": $FILES, \"rras\": \"$RRA\""
before=$(records)
expect_error "$(capreq "{$base}")" bad_argument dirs "no dirs"
expect_error "$(capreq "{\"dirs\": [\"$D1\"], \"start_rate\": 0, $base}")" \
    bad_argument start_rate "start_rate 0"
expect_error "$(capreq "{\"dirs\": [\"$D1\"], \"start_rate\": 500,
    \"max_rate\": 100, $base}")" bad_argument max_rate "max below start"
expect_error "$(capreq "{\"dirs\": [\"$D1\"], \"precision\": 0, $base}")" \
    bad_argument precision "precision 0"
r=$(capreq "{\"dirs\": [\"$D1\"], \"precision\": 100, $base}")
expect_error "$r" bad_argument precision "precision 100"
assert_contains "$(jget "$r" error.message)" "below 100" "precision message"
expect_error "$(capreq "{\"dirs\": [\"$D1\"], \"repeats\": 1.5, $base}")" \
    bad_argument repeats "repeats 1.5"
expect_error "$(capreq "{\"dirs\": [\"$D1\"], \"settle\": 20, $base}")" \
    bad_argument settle "settle over step_min"
expect_error "$(capreq "{\"dirs\": [\"$D1\"], \"step_min\": 1,
    \"step_max\": 2, \"settle\": 0.5, $base}")" \
    bad_argument step_max "a step too short for the verdict"
expect_error "$(capreq "{\"dirs\": [\"$D1\", \"$D1\"], $base}")" \
    bad_argument "dirs[1]" "a dir twice"
mkdir -p "$T/e1"
ln -s "$T/e1" "$T/e1link"
for twice in "$T/e1/" "$T//e1" "$T/e1/../e1" "$T/e1link"; do
	expect_error "$(capreq "{\"dirs\": [\"$T/e1\", \"$twice\"], $base}")" \
	    bad_argument "dirs[1]" "a dir twice as $twice"
done
r=$(capreq "{\"dirs\": [\"$D1\", \"$T/nowhere/x\"], $base}")
expect_error "$r" bad_argument "dirs[1]" "a dir whose parent is missing"
assert_contains "$(jget "$r" error.message)" "mounted" "missing dir message"
expect_error "$(capreq "{\"dirs\": [\"$D1\"], \"max_updates\": 5, $base}")" \
    bad_argument max_updates "max_updates is the search's"
expect_error "$(capreq "{\"dirs\": [\"$D1\"], \"dir\": \"$D1\", $base}")" \
    bad_argument dir "dir instead of dirs"
expect_error "$(capreq "{\"dirs\": [\"$D1\"], \"files\": 0}")" \
    bad_argument files "a bad knob"
# The first step's setup refuses what is in the directory: the reply
# says so, no record is left.
mkdir -p "$T/bad"
echo "not an RRD file" >"$T/bad/0.rrd"
r=$(capreq "{\"dirs\": [\"$T/bad\"], $base}")
expect_error "$r" bad_argument "setup refused"
assert_eq "$(records)" "$before" "records made by refused searches"
[ ! -e "$D1" ] || fail "a refused search created $D1"
assert_alive "after bad searches"

# ---- 2. a short search over two directories: every rate kept up on
# this machine, so each ends at max_rate after 3 steps (500 x its jitter,
# twice that, 2000)
search="\"start_rate\": 500, \"max_rate\": 2000, \"step_min\": 4,
    \"step_max\": 5, \"settle\": 0.5, \"repeats\": 0"
r=$(capreq "{\"dirs\": [\"$D1\", \"$D2\"], \"labels\": [\"one\", \"two\"],
    $search, $base}")
assert_eq "$(jget "$r" ok)" true "capacity accepted: $r"
CID=$(jnum "$r" result.capacity_id)
s=$(wait_for_stats '.capacity != null and .capacity.step >= 2' 60)
assert_eq "$(jget "$s" capacity.id)" "$CID" "stats: capacity.id"
assert_eq "$(jget "$s" capacity.ndirs)" 2 "stats: capacity.ndirs"
st=$(ctlj status)
assert_eq "$(jget "$st" capacity.dir)" "$D1" "status: capacity.dir"
assert_num "$(jnum "$st" capacity.rate)" '>=' 500 "status: capacity.rate"
expect_error "$(rawreq '{"cmd": "start", "args": {"dir": "'"$T"'/c"}}')" \
    busy "start during a search"
assert_contains "$(curl -sf "$URL/metrics")" \
    "stressd_capacity_offered_rate{capacity_id=\"$CID\"" "/metrics"
grep -aq "STATUS=capacity $CID: dir 1/2 $D1, step" "$T/notify.out" ||
    fail "no capacity STATUS line: $(tr '\0' '\n' <"$T/notify.out" | tail -3)"
w=$(ctl watch --count 3 --interval 0.2)
assert_contains "$w" "[capacity $CID: dir " "watch during a search"
rec=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj wait)
assert_eq "$(jget "$rec" schema)" stressd-capacity "wait: the record"
assert_eq "$(jget "$rec" state)" done "the search's state"
F=$STATE/runs/$CID/capacity.json
[ -f "$F" ] || fail "no $F"
for d in 0 1; do
	assert_eq "$(jq -r ".dirs[$d].limited_by" "$F")" max_rate \
	    "dir $d limited_by"
	assert_num "$(jq ".dirs[$d].capacity_rate" "$F")" == 2000 \
	    "dir $d capacity_rate"
	assert_num "$(jq ".dirs[$d].capacity_interval_s" "$F")" == \
	    "$FILES / 2000" "dir $d capacity_interval_s"
	assert_eq "$(jq "[.steps[] | select(.dir_index == $d)] | length" \
	    "$F")" 3 "dir $d steps"
	# Each directory's grid: start_rate x a jitter in [1, 2), its first
	# step there; ended at max_rate, no repeat: a spread of one step.
	g=$(jq -c ".dirs[$d].grid" "$F")
	assert_num "$(jget "$g" jitter)" '>=' 1 "dir $d jitter: $g"
	assert_num "$(jget "$g" jitter)" '<' 2 "dir $d jitter: $g"
	assert_num "($(jget "$g" first_rate) - 500 * $(jget "$g" jitter)) |
	    fabs" '<' 1e-9 "dir $d first_rate = start_rate x jitter: $g"
	assert_num "$(jq "[.steps[] | select(.dir_index == $d)][0].rate" \
	    "$F")" == "$(jget "$g" first_rate)" "dir $d first step's rate"
	assert_eq "$(jq -c ".dirs[$d].at_capacity_spread" "$F")" \
	    '{"steps":1,"queue_avg":null,"latency_p99_ms":null}' \
	    "dir $d at_capacity_spread"
done
assert_eq "$(jq -r '.dirs[1].label' "$F")" two "labels"
assert_eq "$(jq -r '.params.queue_creates' "$F")" false "params as the steps ran"
assert_eq "$(jq -r '.host' "$F")" "$(hostname)" "host"
assert_eq "$(jq -r '[.steps[].kept_up] | all' "$F")" true "every step kept up"
# Each step is a run record of its own, tagged; the files hold every
# update the steps of their directory wrote (timestamps go on).
for d in 0 1; do
	sum=0
	for id in $(jq ".steps[] | select(.dir_index == $d) | .run_id" "$F"); do
		rep=$STATE/runs/$id/report.json
		assert_eq "$(jq .capacity.id "$rep")" "$CID" "run $id: capacity.id"
		# One rule, one wording: the step's record says what its
		# search judged.
		assert_eq "$(jq -c '[.verdict.rule, .verdict.kept_up,
		    .verdict.reason]' "$rep")" "$(jq -c --argjson id "$id" \
		    '.steps[] | select(.run_id == $id) | [2, .kept_up, .reason]' \
		    "$F")" "run $id: its record's verdict is its step's"
		sum=$((sum + $(jq .counters.updates_completed "$rep")))
	done
	dir=$(jq -r ".dirs[$d].dir" "$F")
	assert_eq "$(rrd_sum "$(rrd_scan "$dir" "$FILES")")" "$sum" \
	    "dir $d: updates on disk vs the steps' updates_completed"
done
r=$(rawreq "{\"cmd\": \"report\", \"args\": {\"run\": $CID}}")
assert_eq "$(jget "$r" result.schema)" stressd-capacity "report of the search"
assert_eq "$(ctlj status | jq -c .capacity)" null "status after the search"

# ---- 2b. a directory whose file is refused (kind denied: a symlink):
# a setup problem, not the storage's limit; the other directory goes on
mkdir -p "$T/den"
ln -s /etc/hostname "$T/den/3.rrd"
r=$(capreq "{\"dirs\": [\"$T/den\", \"$T/ok\"], $search, $base}")
assert_eq "$(jget "$r" ok)" true "a search with a refused file: $r"
CID=$(jnum "$r" result.capacity_id)
rec=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj wait)
F=$STATE/runs/$CID/capacity.json
assert_eq "$(jq -r '.dirs[0].state' "$F")" failed "the refused dir"
assert_contains "$(jq -r '.dirs[0].limit_reason' "$F")" "denied" \
    "the refused dir's reason"
assert_eq "$(jq -r '.dirs[0].limited_by' "$F")" null "not the storage"
assert_eq "$(jq '[.steps[] | select(.dir_index == 0)] | length' "$F")" 1 \
    "steps of the refused dir"
# ended at step_min, no longer: more load cannot help refused files
assert_num "$(jq '.steps[] | select(.dir_index == 0) | .load_s' "$F")" \
    '<' "$(jq '.search.step_min_s + 2' "$F")" "the refused step's load"
assert_eq "$(jq '.steps[] | select(.dir_index == 0) | .ended_early' "$F")" \
    true "the refused step ended early"
assert_eq "$(jq -r '.dirs[1].state' "$F")" done "the other dir"
assert_eq "$(jq -r '.state' "$F")" done "the search"

# ---- 3. stop mid-step: stopped, steps so far kept, the step drained
long="\"start_rate\": 300, \"max_rate\": 100000, \"step_min\": 8,
    \"step_max\": 20, \"settle\": 0.5"
r=$(capreq "{\"dirs\": [\"$T/s\"], $long, $base}")
CID=$(jnum "$r" result.capacity_id)
wait_for_stats '.capacity.step >= 2 and .state == "running"' 60 >/dev/null
ctl watch --interval 0.2 >"$T/w.out" 2>&1 &
wpid=$!
HELPER_PIDS+=("$wpid")
sleep 0.5
ctlj stop >/dev/null
rc=0
wait "$wpid" || rc=$?
assert_eq "$rc" 1 "watch of a search that was stopped: $(tail -n 2 "$T/w.out")"
assert_contains "$(cat "$T/w.out")" "capacity search $CID stopped" \
    "watch says the search stopped"
F=$STATE/runs/$CID/capacity.json
assert_eq "$(jq -r .state "$F")" stopped "stopped search's state"
assert_contains "$(jq -r .reason "$F")" "stop" "stopped search's reason"
assert_num "$(jq '.steps | length' "$F")" '>=' 2 "steps kept"
assert_eq "$(jq -r '.steps[-1].state' "$F")" stopped "the last step"
assert_eq "$(jq -r '.steps[-1].kept_up' "$F")" null \
    "a step stopped before its answer"
last=$(jq '.steps[-1].run_id' "$F")
s=$(jq . "$STATE/runs/$last/report.json")
assert_num "$(jnum "$s" counters.updates_completed)" == \
    "$(jnum "$s" counters.enqueued)" "stopped step drained"
assert_eq "$(ctlj status | jq -c .capacity)" null "status after stop"

# ---- 4. SIGTERM mid-step: the record says why; exit 0
r=$(capreq "{\"dirs\": [\"$T/t\"], $long, $base}")
CID=$(jnum "$r" result.capacity_id)
wait_for_stats '.capacity.step >= 1 and .state == "running"' 60 >/dev/null
stop_daemon TERM 60
assert_eq "$DAEMON_RC" 0 "exit status after SIGTERM"
F=$STATE/runs/$CID/capacity.json
assert_eq "$(jq -r .state "$F")" stopped "search at SIGTERM"
assert_contains "$(jq -r .reason "$F")" "SIGTERM" "SIGTERM reason"

# ---- 5. kill -9 mid-step: interrupted at the next start, steps kept
start_daemon
r=$(capreq "{\"dirs\": [\"$T/k\"], $long, $base}")
CID=$(jnum "$r" result.capacity_id)
wait_for_stats '.capacity.step >= 2 and .state == "running"' 60 >/dev/null
kill -9 "$DPID"
wait "$DPID" 2>/dev/null || true
F=$STATE/runs/$CID/capacity.json
n=$(jq '.steps | length' "$F")
assert_num "$n" '>=' 1 "steps before the kill"
# A record of anyone's bytes must not stop the next start.
mkdir "$STATE/runs/9000"
echo '{"schema": "stressd-capacity", "id": 9000, "state": null}' \
    >"$STATE/runs/9000/capacity.json"
start_daemon
assert_eq "$(jq -r .state "$F")" interrupted "search after kill -9"
assert_eq "$(jq '.steps | length' "$F")" "$n" "steps after kill -9"
[ "$(jq -r .ended "$F")" != null ] || fail "an interrupted search's end"
assert_eq "$(jq -r '[.dirs[].state] | index("running")' "$F")" null \
    "a dir still running after kill -9"

# ---- 6. stopped while its first step is being prepared (an eviction
# pass made slow by the shim): the client that asked hears which search
# was stopped (it got only "stopped by a client's stop" before)
RUNS=$(jq -n "[$(jq -r '.steps[].run_id' "$F" | paste -sd,)] | length")
stop_daemon TERM 30
build_shim
STRESSD_WRAPPER=(env -u INVOCATION_ID "LD_PRELOAD=$PRELOAD"
    STRESSD_TEST_SLOW_FADVISE_US=500000)
start_daemon
start_run --dir "$T/pre" --files 10 --max-updates 10 --update-time 0 \
    --rra "$RRA" >/dev/null
wait_run >/dev/null
# socat of its own: rawsend's files are rawreq's too.
printf '{"cmd": "capacity", "args": {"dirs": ["%s"], "files": 10, "rras": '\
'"%s", "sync": "drop-caches"}}\n' "$T/pre" "$RRA" |
    socat -t 60 - "UNIX-CONNECT:$SOCK" >"$T/pre.reply" &
ppid=$!
HELPER_PIDS+=("$ppid")
for _ in $(seq 100); do
	[ "$(ctlj status | jq -r '.capacity.state')" = running ] && break
	sleep 0.1
done
r=$(rawreq '{"cmd": "stop", "args": {"wait": false}}')
assert_eq "$(jget "$r" ok)" true "stop while preparing: $r"
wait "$ppid" || true
r=$(cat "$T/pre.reply")
expect_error "$r" no_run "a search stopped before its first step"
assert_contains "$(jget "$r" error.message)" "before its first step" \
    "which search was stopped"
assert_alive "at the end"
log "ok ($RUNS steps in the killed search)"
