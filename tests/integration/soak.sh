#!/bin/bash
# The soak test as make check runs it: tests/soak.sh for 60 s
# (SOAK_DURATION overrides; see tests/soak.sh for a day-long run).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
exec bash "$(dirname "$0")/../soak.sh" "${SOAK_DURATION:-60}"
