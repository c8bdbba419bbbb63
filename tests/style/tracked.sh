#!/bin/bash
# What the repository tracks at its root is the known list below, and no
# tracked file anywhere is named like a shell redirection's accident (a
# bare number, as `cmd 2>1` makes, or a name starting with '-' or '>'):
# a stray file `1` holding "0.1" was tracked once (issue 22).  A new file
# at the root goes into the list.  Skips outside a git clone (a tarball).
set -u
top=${TOP_SRCDIR:-$(dirname "$0")/../..}
cd "$top" || exit 99
# (A tarball unpacked inside a clone, as distcheck does, is no clone.)
command -v git >/dev/null &&
    [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ] ||
    { echo "SKIP: tracked: not a git clone"; exit 77; }
known='.gitignore HACKING.md Makefile.am README.md configure.ac'
bad=0
while IFS= read -r f; do
	case " $known " in
	*" $f "*) ;;
	*) echo "tracked: $f at the root is not in tests/style/tracked.sh's list"
	   bad=1 ;;
	esac
done < <(git ls-files | grep -v /)
while IFS= read -r f; do
	echo "tracked: $f: a name like a redirection's accident"
	bad=1
done < <(git ls-files | grep -E '(^|/)([0-9]+|[->][^/]*)$')
[ "$bad" -eq 0 ] && echo "tracked: ok"
exit "$bad"
