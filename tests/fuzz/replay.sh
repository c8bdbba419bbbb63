#!/bin/bash
# The fuzz corpus (tests/fuzz/corpus) replayed through the request
# parser's fuzz entry under valgrind (issue 22): an uninitialised value
# used on any error path, an invalid read or a leak fails the test.
# Without valgrind (or in a sanitizer build, which checks itself) the
# replay still runs, with the target's own checks.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${REPLAY_BIN:-tests/fuzz/request_replay}
corpus=$top/tests/fuzz/corpus
[ -x "$bin" ] || { echo "FAIL: no $bin" >&2; exit 1; }
# A sanitizer build (CI's second pass) is checked by ASan and UBSan as it
# runs; valgrind cannot run a binary that carries ASan's runtime.
if grep -aq __asan_init "$bin"; then
	echo "replay: an ASan build: its own checks, not valgrind"
	exec "$bin" "$corpus"
fi
if command -v valgrind >/dev/null; then
	exec valgrind -q --error-exitcode=1 --track-origins=yes \
	    --leak-check=full --errors-for-leak-kinds=definite \
	    "$bin" "$corpus"
fi
echo "replay: no valgrind, the target's checks only"
exec "$bin" "$corpus"
