#!/bin/sh
# Installs Debian's Virtuoso Open Source 7 (package virtuoso-opensource) for kg's remote-engine
# tests (tests/remote/test_virtuoso.py), non-interactively and idempotently.
#
# The tests never use the system instance: each test run starts its own virtuoso-t in the
# foreground with a temporary database folder and virtuoso.ini, on 127.0.0.1 only. So the
# package's own service is kept from starting while the package is installed (a temporary
# policy-rc.d, unless the machine already has one) and disabled at boot afterwards (its default
# database would listen on every interface with the dba/dba account), and the debconf question
# for the DBA password is preseeded with a random password that is never printed (the package
# clears it from debconf).
#
#   sudo scripts/install-virtuoso.sh        # as root; a no-op when virtuoso-t is already there
set -eu

if command -v virtuoso-t >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "virtuoso-t is missing: run 'sudo scripts/install-virtuoso.sh' to run the Virtuoso tests (they skip without it)" >&2
    exit 0
fi

POLICY=/usr/sbin/policy-rc.d
OWN_POLICY=
if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\n# written by kg scripts/install-virtuoso.sh while it installs, removed after\nexit 101\n' >"$POLICY"
    chmod 755 "$POLICY"
    OWN_POLICY=1
fi
cleanup() { if [ -n "$OWN_POLICY" ]; then rm -f "$POLICY"; fi; }
trap cleanup EXIT INT TERM

PASSWORD=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
debconf-set-selections <<SELECTIONS
virtuoso-opensource-7 virtuoso-opensource-7/dba-password password $PASSWORD
virtuoso-opensource-7 virtuoso-opensource-7/dba-password-again password $PASSWORD
SELECTIONS
unset PASSWORD

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends virtuoso-opensource >/dev/null
# no system instance: kg's tests start their own
update-rc.d virtuoso-opensource-7 disable >/dev/null 2>&1 || true
if [ -d /run/systemd/system ]; then
    systemctl disable --now virtuoso-opensource-7 >/dev/null 2>&1 || true
fi
command -v virtuoso-t >/dev/null
echo "installed $(virtuoso-t -? 2>&1 | grep '^Version' || echo virtuoso-t)"
