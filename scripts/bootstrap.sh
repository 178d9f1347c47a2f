#!/usr/bin/env bash
# Set up a machine from this copy of the repository, in a virtual environment in .venv.
#
#   scripts/bootstrap.sh         what `make demo` and `make test` need (a developer's machine, CI): every
#                                Debian package listed, and the project with its test extras
#   scripts/bootstrap.sh pi      a table's Pi: only what the controller runs on (apt-packages-runtime.txt,
#                                the project without extras), no browser, fonts or tile art for the tests
#   scripts/bootstrap.sh hub     a tournament's hub: the Pi's, and the MQTT broker (apt-packages-hub.txt)
#   ... --list                   print the Debian packages that set-up wants, install nothing
#
# Editable (`pip install -e`): the rulesets and the example config are read from this copy, and an update
# is `git pull` and this again. Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

role="dev"
list_only=0
for arg in "$@"; do
  case "$arg" in
    pi|hub|dev) role="$arg" ;;
    --list) list_only=1 ;;
    *) echo "bootstrap: unknown argument '$arg' (pi, hub or nothing; --list)" >&2; exit 2 ;;
  esac
done
case "$role" in
  pi)  lists=(apt-packages-runtime.txt); extras=""; stamp=.venv/.installed-pi ;;
  hub) lists=(apt-packages-runtime.txt apt-packages-hub.txt); extras=""; stamp=.venv/.installed-hub ;;
  dev) lists=(apt-packages-runtime.txt apt-packages-hub.txt apt-packages.txt); extras="[test]"
       stamp=.venv/.installed ;;
esac

mapfile -t wanted < <(cat "${lists[@]}" | grep -vE '^\s*(#|$)' | sort -u)
if [ "$list_only" -eq 1 ]; then
  printf '%s\n' "${wanted[@]}"
  exit 0
fi
missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
# setuptools at the build's own minimum (pyproject.toml), not the one a venv of Python 3.11 comes with (65)
.venv/bin/python -m pip install -q --upgrade pip "setuptools>=77"
.venv/bin/python -m pip install -q -e ".${extras}"
# `make` names the stamp by a digest of what set-up read (Makefile); the role's stamps of older digests go
if [ -n "${BOOTSTRAP_STAMP:-}" ]; then
  for old in "$stamp"-*; do
    if [[ "$old" =~ ^"$stamp"-[0-9a-f]{16}$ && "$old" != "$BOOTSTRAP_STAMP" ]]; then rm -f "$old"; fi
  done
  stamp="$BOOTSTRAP_STAMP"
fi
touch "$stamp"
echo "bootstrap: ready ($role)"
if [ "$role" = pi ]; then
  echo "bootstrap: next: cp config/table.example.toml mytable.toml (the table's link, ruleset, players, PINs),"
  echo "           .venv/bin/tablectl check --config mytable.toml, sudo .venv/bin/tablectl install-service --config ..."
elif [ "$role" = hub ]; then
  echo "bootstrap: next: the broker (tablectl broker-config, docs/tournament.md), then"
  echo "           sudo .venv/bin/tablectl install-service --hub -- <tablectl hub arguments>"
fi
