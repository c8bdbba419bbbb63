#!/bin/bash
# The layout rule of HACKING: no source file in common/, daemon/ or ctl/
# over 700 lines, no function over 120.  A function is measured from the
# line that names it (at column 0, as style(9) writes a definition) to
# its closing brace at column 0.  Run by hand as
#   tests/style/lengths.sh [-v] [FILE...]
# -v lists every function over 60 lines too.
set -u
top=${TOP_SRCDIR:-$(dirname "$0")/../..}
max_file=700 max_fn=120 verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
if [ $# -eq 0 ]; then
	set -- "$top"/common/*.[ch] "$top"/daemon/*.[ch] "$top"/ctl/*.[ch]
fi
bad=0
for f in "$@"; do
	n=$(wc -l <"$f")
	if [ "$n" -gt "$max_file" ]; then
		echo "${f#$top/}: $n lines (at most $max_file)"
		bad=1
	fi
done
awk -v max="$max_fn" -v verbose="$verbose" -v top="$top/" '
	FNR == 1 { name = ""; start = 0 }
	/^[A-Za-z_][A-Za-z0-9_]*\(/ { name = $0; sub(/\(.*/, "", name); start = FNR }
	/^\{/ && name != "" { inbody = 1 }
	/^\}/ && inbody {
		len = FNR - start + 1
		file = FILENAME; sub(top, "", file)
		if (len > max) { printf "%s: %s() is %d lines (at most %d)\n", file, name, len, max; bad = 1 }
		else if (verbose && len > 60) printf "%s: %s() %d lines\n", file, name, len
		inbody = 0; name = ""
	}
	END { exit bad }
' "$@" || bad=1
exit $bad
