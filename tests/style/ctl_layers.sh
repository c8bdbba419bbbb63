#!/bin/bash
# stressctl's layers (HACKING, "Includes"), bottom to top: the helpers, the
# records and views, the commands, the command table.  No file includes a
# header of a layer above its own, and (once built) no object calls a
# function of a module above its own, whatever declaration it uses.  A new
# ctl file fails here until it is given a layer (below and in HACKING).
set -u
top=${TOP_SRCDIR:-$(dirname "$0")/../..}
cd "$top" || exit 99
[ -d ctl ] || { echo "no ctl/ in $top"; exit 99; }
names=(- helpers views commands table)
# layer MODULE: 1 to 4, or 0 for one that has none
layer() {
	case $1 in
	fmt|columns|kv|termsafe|suggest|client|gnuplot|\
	recparse|runrec|statsrec|caprec|sweeprec|runsrec|statusrec) echo 1;;
	records|verdicts|capview|capspread|capname|capline|capgraph|graph|\
	overlay|compare-view|\
	rank|headline|statsview|replyview|runsview) echo 2;;
	ctl|options|call|follow|cmd-*) echo 3;;
	cmd|stressctl) echo 4;;
	*) echo 0;;
	esac
}
bad=0
for f in ctl/*.[ch]; do
	m=$(basename "${f%.[ch]}")
	l=$(layer "$m")
	if [ "$l" = 0 ]; then
		echo "$f: in no layer (add it to HACKING's and $0's)"
		bad=1
		continue
	fi
	for h in $(sed -n 's/^#include "\(.*\)\.h".*/\1/p' "$f"); do
		[ -e "ctl/$h.h" ] || continue	# config.h, common/
		hl=$(layer "$h")
		if [ "$hl" -gt "$l" ]; then
			echo "$f (${names[$l]}) includes $h.h (${names[$hl]})"
			bad=1
		fi
	done
done
# Calls, by the objects' symbols: a module may declare for itself what
# it calls, which no include shows.
b=$(dirname "${STRESSCTL:-ctl/stressctl}")
objs=$(ls "$b"/*.o 2>/dev/null)
if [ -n "$objs" ] && command -v nm >/dev/null; then
	# ctl/libctl_a-kv.o -> kv; each object's module with its layer
	lay=$(for o in $objs; do
		m=$(basename "$o" .o | sed 's/^libctl_a-//; s/^stressctl-//')
		echo "$o $m $(layer "$m")"
	done)
	out=$( { echo "$lay"; echo --; for o in $objs; do
		nm --defined-only "$o" | sed "s|^|D $o |"
		nm --undefined-only "$o" | sed "s|^|U $o |"
	done; } | awk -v n1=helpers -v n2=views -v n3=commands -v n4=table '
		BEGIN { name[1] = n1; name[2] = n2; name[3] = n3; name[4] = n4 }
		!sep && $0 == "--" { sep = 1; next }
		!sep { mod[$1] = $2; lay[$1] = $3; next }
		$1 == "D" && $4 ~ /^[TDBR]$/ { def[$5] = $2; next }
		$1 == "U" { use[++n] = $2 " " $4 }
		END {
			for (i = 1; i <= n; i++) {
				split(use[i], u, " ")
				o = u[1]; s = u[2]; d = def[s]
				if (d == "" || d == o || lay[o] == 0)
					continue
				if (lay[d] > lay[o])
					printf "ctl/%s (%s) calls %s of ctl/%s (%s)\n",
					    mod[o], name[lay[o]], s, mod[d],
					    name[lay[d]]
			}
		}')
	if [ -n "$out" ]; then
		echo "$out"
		bad=1
	fi
fi
exit $bad
