#!/bin/bash
# Which module may include which (HACKING, "Includes"):
# - the engine (daemon/libengine.a) never includes the control plane
#   (daemon/libcontrol.a): control, request, the command table, lifecycle,
#   run records, the exposition, prom;
# - control.c and request.c, which frame and check requests, never include
#   the commands or the run they act on (no include circle);
# - job.c, lifecycle.c and request.c never include a job kind (a header
#   declaring a struct job_kind): lifecycle drives kinds through their
#   tables, which main.c registers;
# - runpriv.h (struct run itself) is for the run*.c files only;
# - common/ includes only common/.
set -u
top=${TOP_SRCDIR:-$(dirname "$0")/../..}
cd "$top" || exit 99
bad=0
# The .c and .h names of a Makefile.am source list.
list() {
	sed -n "/^$1 =/,/[^\\\\]\$/p" Makefile.am | tr ' \t\\' '\n\n\n' |
	    grep -E '^daemon/.*\.[ch]$'
}
engine=$(list daemon_libengine_a_SOURCES)
control=$(list daemon_libcontrol_a_SOURCES)
[ -n "$engine" ] && [ -n "$control" ] || { echo "cannot read Makefile.am"; exit 99; }
control_h=$(for f in $control; do case $f in *.h) basename "$f";; esac; done)
# includes FILE: the quoted headers it names
includes() { sed -n 's/^#include "\(.*\)".*/\1/p' "$1"; }
for f in $engine; do
	for h in $(includes "$f"); do
		if grep -qx "$h" <<<"$control_h"; then
			echo "$f includes $h: the engine may not include the control plane"
			bad=1
		fi
	done
done
for f in daemon/control.c daemon/control.h daemon/request.c daemon/request.h; do
	for h in $(includes "$f"); do
		case $h in
		cmd.h|cmdentry.h|cmd-*.h|lifecycle.h|runrecords.h|exposition.h|run.h)
			echo "$f includes $h: framing and checks stay below the commands"
			bad=1;;
		esac
	done
done
kinds=$(grep -l '^extern const struct job_kind' daemon/*.h | xargs -r -n1 basename)
for f in daemon/job.c daemon/job.h daemon/lifecycle.c daemon/lifecycle.h \
    daemon/request.c daemon/request.h; do
	[ -e "$f" ] || continue
	for h in $(includes "$f"); do
		if grep -qx "$h" <<<"$kinds"; then
			echo "$f includes $h: a job kind is reached through its table only"
			bad=1
		fi
	done
done
for f in $(grep -l '^#include "runpriv.h"' daemon/*.[ch] tests/unit/*.c); do
	# the engine's run*.c (runrecords.c is the control plane's)
	case $f in
	daemon/run*) grep -qx "$f" <<<"$engine" && continue;;
	esac
	echo "$f includes runpriv.h: only the engine's run*.c files may"
	bad=1
done
for f in common/*.[ch]; do
	for h in $(includes "$f"); do
		[ "$h" = config.h ] || [ -e "common/$h" ] || {
			echo "$f includes $h: common/ includes only common/"
			bad=1
		}
	done
done
exit $bad
