#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# make install/uninstall into a DESTDIR: binaries, units, man pages in
# place; systemd-analyze verify clean on the installed units; mandoc -Tlint
# clean on the installed pages.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

install_dest
unitdir=$(bmake print-unitdir 2>/dev/null)
sbindir=$(bmake print-sbindir 2>/dev/null)
[ -n "$unitdir" ] && [ -n "$sbindir" ] || fail "cannot ask make for the install dirs"
for f in "$sbindir/stressd" "$unitdir/stressd.service" "$unitdir/stressd.socket"; do
	[ -e "$D$f" ] || fail "$f not installed"
done
[ -x "$D$sbindir/stressd" ] || fail "stressd not executable"
find "$D" -name 'stressctl' -path '*/bin/*' | grep -q . || fail "stressctl not installed"
find "$D" -name 'stressd.8' | grep -q . || fail "stressd.8 not installed"
find "$D" -name 'stressctl.1' | grep -q . || fail "stressctl.1 not installed"
grep -q "^ExecStart=$sbindir/stressd" "$D$unitdir/stressd.service" ||
    fail "ExecStart does not name $sbindir/stressd"
grep -q '^ListenStream=/run/stressd/stressd.sock$' "$D$unitdir/stressd.socket" ||
    fail "socket unit: ListenStream"
grep -q '^SocketMode=0660$' "$D$unitdir/stressd.socket" || fail "socket unit: mode"
# README: the socket is root:stressd.  systemd chowns the content of a
# RuntimeDirectory= to User= at each start: none may hold the socket.
! grep '^SocketUser=' "$D$unitdir/stressd.socket" ||
    fail "socket unit: a SocketUser= (README: the socket is root's)"
for d in $(sed -n 's/^RuntimeDirectory=//p' "$D$unitdir/stressd.service"); do
	case /run/stressd/stressd.sock in
	"/run/$d/"*) fail "RuntimeDirectory=$d holds the socket: systemd" \
	    "would chown it to stressd at each start" ;;
	esac
done

if command -v systemd-analyze >/dev/null; then
	# The units as installed, with the binary path rebased into DESTDIR
	# (nothing is installed on the host); man pages are linted below.
	mkdir "$T/units"
	for u in stressd.service stressd.socket; do
		sed "s|$sbindir/|$D$sbindir/|g" "$D$unitdir/$u" >"$T/units/$u"
	done
	out=$(cd "$T/units" && systemd-analyze verify --man=no ./stressd.socket \
	    ./stressd.service 2>&1) || fail "systemd-analyze verify: $out"
	[ -z "$out" ] || fail "systemd-analyze verify says: $out"
else
	log "SKIP part: systemd-analyze is not installed; units not verified"
fi
if command -v mandoc >/dev/null && command -v makewhatis >/dev/null; then
	# Style warnings included: our pages must reference each other as
	# installed.  A reference to another package's page (rrdtool(1),
	# realpath(3)) counts only where that page is installed here.
	mandir=$(dirname "$(find "$D" -path '*/man/man8' -type d | head -n 1)")
	makewhatis "$mandir"
	while IFS= read -r page; do
		out=$(mandoc -Tlint -Wstyle -M "$mandir:/usr/share/man" "$page" 2>&1 |
		    grep -v 'outdated mandoc.db' |
		    while IFS= read -r l; do
			if [[ $l =~ referenced\ manual\ not\ found:\ Xr\ ([^ ]+)\ ([0-9]) ]] &&
			    ! man -w "${BASH_REMATCH[2]}" "${BASH_REMATCH[1]}" >/dev/null 2>&1 &&
			    [ ! -e "$mandir/man${BASH_REMATCH[2]}/${BASH_REMATCH[1]}.${BASH_REMATCH[2]}" ]; then
				continue	# another package's page, not installed
			fi
			printf '%s\n' "$l"
		    done)
		[ -z "$out" ] || fail "mandoc -Tlint -Wstyle $page: $out"
	done < <(find "$D" -path '*/man/man*' -type f ! -name mandoc.db)
	rm -f "$mandir/mandoc.db"
else
	log "SKIP part: mandoc is not installed; pages not linted"
fi

bmake uninstall DESTDIR="$D" >"$T/uninstall.log" 2>&1 ||
    fail "make uninstall: $(tail -5 "$T/uninstall.log")"
left=$(find "$D" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
log "ok: install, units verified, pages linted, uninstall"
