#!/bin/bash
# No circle among the modules of common/, daemon/ and ctl/ (HACKING,
# "Layers"): a module is either above or below another, never both.
# Edges come from two sources, so a circle shows whichever way it is made:
# - includes: X.c or X.h includes "Y.h" where Y.c exists (in X's folder,
#   or in common/);
# - calls: X's object refers to a symbol (a function or a table) that Y's
#   object defines, read with nm from the built libraries, so a module that
#   calls one above it through a declaration it wrote itself is caught too.
# A module split over several files behind its private header <name>priv.h
# (run*.c behind runpriv.h, queue*.c behind queuepriv.h) is one module.
# Circles are found by tsort(1), which names each loop it meets; every
# edge of a loop is printed with what made it.
set -u
top=${TOP_SRCDIR:-$(dirname "$0")/../..}
build=${TOP_BUILDDIR:-$top}
cd "$top" || exit 99
top=$PWD
work=$(mktemp -d) || exit 99
trap '[ -n "${KEEPWORK:-}" ] || rm -rf "$work"' EXIT

# mod FILE: the module a source file belongs to (dir/name).
declare -A modof
for f in common/*.[ch] daemon/*.[ch] ctl/*.[ch]; do
	d=${f%%/*} b=$(basename "${f%.*}")
	p=$(sed -n 's/^#include "\([a-z]*\)priv\.h".*/\1/p' "$f" | head -n 1)
	if [ -n "$p" ] && [ -e "$d/$p.c" ]; then
		modof[$f]=$d/$p
	elif [ -e "$d/$b.c" ]; then
		modof[$f]=$d/$(basename "$b")
	fi
done
modof_c() {	# modof_c DIR NAME: the module of DIR/NAME.c, or nothing
	[ -e "$1/$2.c" ] && echo "${modof[$1/$2.c]}"
}

# Include edges: "from to why" lines.
for f in "${!modof[@]}"; do
	from=${modof[$f]} d=${f%%/*}
	while IFS=: read -r line h; do
		to=$(modof_c "$d" "$h")
		[ -z "$to" ] && to=$(modof_c common "$h")
		[ -n "$to" ] && [ "$to" != "$from" ] &&
		    echo "$from $to $f:$line includes $h.h"
	done < <(grep -n '^#[[:space:]]*include[[:space:]]*"[^"/]*\.h"' "$f" |
	    sed 's/^\([0-9]*\):.*"\(.*\)\.h".*/\1:\2/')
done >"$work/edges"

# Call edges, from the built libraries and the two programs' mains.
objs=
for a in common/libcommon.a daemon/libengine.a daemon/libcontrol.a \
    ctl/libctl.a daemon/stressd-main.o ctl/stressctl-stressctl.o; do
	[ -e "$build/$a" ] || { echo "$build/$a: not built (make first)"; exit 99; }
	objs="$objs $build/$a"
done
# "dir member kind symbol" for each defined (T D B R) or used (U) symbol.
# shellcheck disable=SC2086
for o in $objs; do
	d=$(basename "$(dirname "$o")")
	nm -A -P "$o" | awk -v d="$d" '{
		n = $1; sub(/:$/, "", n); sub(/.*[\[:]/, "", n); sub(/\]$/, "", n)
		sub(/^[a-z_]*-/, "", n); sub(/\.o$/, "", n)
		if ($3 ~ /^[TDBRC]$/ || $3 == "U")
			print d, n, ($3 == "U" ? "U" : "D"), $2
	}'
done >"$work/syms"
while read -r d n kind sym; do
	from=${modof[$d/$n.c]:-$d/$n}
	echo "$from $kind $sym"
done <"$work/syms" >"$work/msyms"
# The two programs define names of their own alike (cmd_start_entry):
# a use resolves within its program's folder, or in common/.
awk '{ split($1, p, "/") }
    $2 == "D" { def[p[1] " " $3] = $1; next }
    { use[NR] = p[1] " " $1 " " $3 }
    END {
	for (i in use) {
		split(use[i], u, " ")
		if ((u[1] " " u[3]) in def)
			to = def[u[1] " " u[3]]
		else if (("common " u[3]) in def)
			to = def["common " u[3]]
		else
			continue
		if (to != u[2])
			print u[2], to, "calls " u[3]
	}
    }' "$work/msyms" | sort -u >>"$work/edges"

# A checker that reads no edges would pass anything: both kinds must be there.
for kind in includes calls; do
	grep -q " $kind " "$work/edges" ||
	    { echo "no '$kind' edges read: cannot check"; exit 99; }
done
awk '{ print $1, $2 }' "$work/edges" | sort -u | tsort >/dev/null 2>"$work/loops"
if [ ! -s "$work/loops" ]; then
	echo "no circle among $(printf '%s\n' "${modof[@]}" | sort -u | wc -l) modules ($(wc -l <"$work/edges") edges)"
	exit 0
fi
# tsort names a loop's members in order, each after "tsort: ".
awk '/input contains a loop/ { if (n) print line; line = ""; n = 0; next }
    { sub(/^tsort: /, ""); line = line (n++ ? " " : "") $0 }
    END { if (n) print line }' "$work/loops" | while read -r -a loop; do
	n=${#loop[@]}
	printf 'circle: %s -> %s\n' "$(IFS=' '; echo "${loop[*]}" | sed 's/ / -> /g')" "${loop[0]}"
	for ((i = 0; i < n; i++)); do
		a=${loop[i]} b=${loop[(i + 1) % n]}
		awk -v a="$a" -v b="$b" '$1 == a && $2 == b {
			$1 = $2 = ""; sub(/^  /, ""); print "    " a " -> " b ": " $0; exit }' \
		    "$work/edges"
	done
done
exit 1
