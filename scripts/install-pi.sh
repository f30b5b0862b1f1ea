#!/usr/bin/env bash
# Install tableref as a service on Raspberry Pi OS (Bookworm, 64-bit), from this checkout:
#
#   sudo scripts/install-pi.sh                      # install, start, print the dashboard's address
#   sudo scripts/install-pi.sh --uninstall          # remove the service and the program, keep config and data
#   sudo scripts/install-pi.sh --uninstall --purge  # ... and the configuration, the data and the user
#
# What it does (docs/pi.md has the whole path from a blank SD card):
#   * Debian packages: python3-picamera2 and python3-lgpio come from Raspberry Pi OS (not on PyPI for the Pi);
#   * a virtualenv in /opt/tableref/venv made with --system-site-packages, so it sees them;
#   * a system user `tableref` in the groups video (camera), gpio (buttons, LEDs), dialout (sensor board, RFID UART);
#   * data in /var/lib/tableref, configuration in /etc/tableref/table.toml (from examples/table.toml if absent);
#   * a systemd unit (Type=notify with a watchdog, restart on failure, logs to the journal), enabled and started.
#
# For trying it out anywhere (tests/pi/test_install_script.py does):
#   --prefix DIR   write every file under DIR instead of / (unit, configuration, data, program)
#   --dry-run      do not run the commands that need root (apt-get, useradd, systemctl, chown): print them
#   --venv DIR     use this existing virtualenv instead of making one (a developer's .venv)
#   --no-start     install and enable, do not start
#   --port N       the dashboard's port in a new configuration (default 8080)
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX=""
DRY_RUN=0
ACTION=install
PURGE=0
START=1
VENV_FROM=""
PORT=8080
SERVICE_USER=tableref
GROUPS_NEEDED=(video gpio dialout)
APT_PACKAGES=(python3-venv python3-pip python3-picamera2 python3-lgpio)

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX="${2:?--prefix needs a folder}"; shift 2 ;;
    --prefix=*) PREFIX="${1#*=}"; shift ;;
    --dry-run) DRY_RUN=1; shift ;;
    --uninstall) ACTION=uninstall; shift ;;
    --purge) PURGE=1; shift ;;
    --no-start) START=0; shift ;;
    --venv) VENV_FROM="${2:?--venv needs a folder}"; shift 2 ;;
    --port) PORT="${2:?--port needs a number}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-pi.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
  esac
done
if [ "$PURGE" = 1 ] && [ "$ACTION" != uninstall ]; then
  echo "install-pi.sh: --purge goes with --uninstall" >&2; exit 2
fi
case "$PORT" in ''|*[!0-9]*) echo "install-pi.sh: --port must be a number" >&2; exit 2 ;; esac
if [ -n "$PREFIX" ]; then
  mkdir -p "$PREFIX"
  PREFIX="$(cd "$PREFIX" && pwd)"
fi

APP_DIR="$PREFIX/opt/tableref"
VENV="${VENV_FROM:-$APP_DIR/venv}"
CONF_DIR="$PREFIX/etc/tableref"
CONFIG="$CONF_DIR/table.toml"
DATA_DIR="$PREFIX/var/lib/tableref"
UNIT="$PREFIX/etc/systemd/system/tableref.service"

say() { printf '%s\n' "$*"; }

# A command that changes the system outside the prefix (packages, users, services, ownership):
# printed always, run unless --dry-run.
as_root() {
  local word line="+"
  for word in "$@"; do
    case "$word" in
      *[!A-Za-z0-9_./:=@%+,-]*|'') line="$line '${word//\'/\'\\\'\'}'" ;;
      *) line="$line $word" ;;
    esac
  done
  printf '%s\n' "$line"
  if [ "$DRY_RUN" = 0 ]; then "$@"; fi
}

check_machine() {
  if [ "$DRY_RUN" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "install-pi.sh: run it as root: sudo $0  (or add --dry-run to see what it would do)" >&2; exit 1
  fi
  local codename="" arch
  codename="$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")" || true
  arch="$(uname -m)"
  if [ "$codename" != bookworm ] || [ "$arch" != aarch64 ]; then
    say "note: made for Raspberry Pi OS Bookworm 64-bit (aarch64); this is ${codename:-unknown} on $arch"
  fi
}

install_packages() {
  as_root apt-get update
  as_root apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
}

make_user() {
  local g
  for g in "${GROUPS_NEEDED[@]}"; do
    getent group "$g" >/dev/null || as_root groupadd --system "$g"
  done
  if ! getent passwd "$SERVICE_USER" >/dev/null; then
    as_root useradd --system --user-group --home-dir /var/lib/tableref --no-create-home --shell /usr/sbin/nologin \
      --comment "tableref referee" "$SERVICE_USER"
  fi
  as_root usermod --append --groups "$(IFS=,; echo "${GROUPS_NEEDED[*]}")" "$SERVICE_USER"
}

make_venv() {
  if [ -n "$VENV_FROM" ]; then
    [ -x "$VENV/bin/tableref" ] || { echo "install-pi.sh: $VENV/bin/tableref not found (--venv must have tableref installed)" >&2; exit 1; }
    say "using the virtualenv $VENV"
    return
  fi
  mkdir -p "$APP_DIR"
  say "making the virtualenv $VENV (--system-site-packages: it sees the OS's picamera2 and lgpio)"
  python3 -m venv --system-site-packages "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  # the versions the project was tested with (constraints.txt: OpenCV's numerics move the camera's readings)
  "$VENV/bin/python" -m pip install --quiet -c "$SRC/constraints.txt" "$SRC"
  # Raspberry Pi OS builds simplejpeg (which picamera2 imports) against its numpy 1.x; the venv has
  # numpy 2 for OpenCV, so a simplejpeg built for numpy 2 from PyPI goes into the venv beside it.
  if [ -d /usr/lib/python3/dist-packages/simplejpeg ]; then
    "$VENV/bin/python" -m pip install --quiet simplejpeg
  fi
}

write_config() {
  mkdir -p "$CONF_DIR" "$DATA_DIR"
  local f
  for f in table-tags.json table-wiring.json; do
    [ -e "$DATA_DIR/$f" ] || cp "$SRC/examples/$f" "$DATA_DIR/$f"
  done
  if [ -e "$CONFIG" ]; then
    say "keeping the configuration $CONFIG"
  else
    # the example, with its files in the data folder (the dashboard writes the tag registry) and the chosen port
    sed -e "s|^data_dir = .*|data_dir = \"$DATA_DIR\"              # the event store, captured boards, the camera's model|" \
        -e "s|^tags = \"table-tags.json\"|tags = \"$DATA_DIR/table-tags.json\"|" \
        -e "s|^antennas = \"table-wiring.json\"|antennas = \"$DATA_DIR/table-wiring.json\"|" \
        -e "s|^port = 8080|port = $PORT|" \
        "$SRC/examples/table.toml" > "$CONFIG.tmp"
    mv "$CONFIG.tmp" "$CONFIG"
    say "wrote the configuration $CONFIG (from examples/table.toml; docs/runtime.md describes every key)"
  fi
  chmod 0640 "$CONFIG"
  as_root chown "root:$SERVICE_USER" "$CONFIG"
  as_root chown -R "$SERVICE_USER:$SERVICE_USER" "$DATA_DIR"
  as_root chmod 0750 "$DATA_DIR"
}

write_unit() {
  mkdir -p "$(dirname "$UNIT")"
  sed -e "s|@VENV@|$VENV|g" -e "s|@CONFIG@|$CONFIG|g" -e "s|@DATA_DIR@|$DATA_DIR|g" -e "s|@USER@|$SERVICE_USER|g" \
      "$SRC/scripts/pi/tableref.service.in" > "$UNIT"
  say "wrote the systemd unit $UNIT"
}

start_service() {
  as_root systemctl daemon-reload
  if [ "$START" = 0 ]; then
    as_root systemctl enable tableref.service
    return
  fi
  as_root systemctl enable --now tableref.service
  [ "$DRY_RUN" = 1 ] && return
  say "waiting for the dashboard on port $PORT ..."
  local i
  for i in $(seq 1 90); do
    if "$VENV/bin/python" -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$PORT/api/health', timeout=2)" 2>/dev/null; then
      say "tableref is running. On a tablet on the same network open  http://tableref.local:$PORT/"
      say "(or http://$(hostname -I 2>/dev/null | awk '{print $1}'):$PORT/). Logs: journalctl -u tableref -f"
      return
    fi
    sleep 1
  done
  echo "install-pi.sh: the service did not answer within 90 s; see: systemctl status tableref; journalctl -u tableref" >&2
  exit 1
}

install() {
  check_machine
  install_packages
  make_user
  make_venv
  write_config
  write_unit
  start_service
}

uninstall() {
  check_machine
  as_root systemctl disable --now tableref.service || true
  rm -f "$UNIT"
  as_root systemctl daemon-reload
  if [ -z "$VENV_FROM" ]; then rm -rf "$APP_DIR"; fi
  if [ "$PURGE" = 1 ]; then
    rm -rf "$CONF_DIR" "$DATA_DIR"
    if getent passwd "$SERVICE_USER" >/dev/null; then as_root userdel "$SERVICE_USER"; fi
    say "removed tableref, its configuration, its data and its user"
  else
    say "removed the service and the program; kept the configuration $CONF_DIR and the data $DATA_DIR"
    say "(scripts/install-pi.sh --uninstall --purge removes them too)"
  fi
}

"$ACTION"
