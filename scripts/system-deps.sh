#!/usr/bin/env bash
# Install the Debian packages the test-suite needs, when we can (root on Debian/Raspberry Pi OS).
set -u
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v socat >/dev/null 2>&1 || need+=(socat)
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)  # the MQTT publisher and venue tests
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)  # verifies the Pi's unit file (tests/pi)
command -v ip >/dev/null 2>&1 || need+=(iproute2)  # a private network namespace for the mDNS tests (tests/pi)
# Chinese glyphs for the dashboard's screenshots (test-artifacts/web); the tests pass without them
fc-list :lang=zh 2>/dev/null | grep -q . || need+=(fonts-noto-cjk)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian packages: ${need[*]}"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}") >/tmp/tableref-apt.log 2>&1 \
    || { echo "apt-get failed, see /tmp/tableref-apt.log"; exit 1; }
else
  echo "note: missing ${need[*]}; install them with: sudo apt-get install ${need[*]}" >&2
fi
