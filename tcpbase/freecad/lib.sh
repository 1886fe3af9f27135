# Shared by run-tests.sh, demo.sh and desktop.sh (sourced, not run): find
# or install FreeCAD, start and stop the headless base and the desktop one.

# freecadcmd_path prints the path of freecadcmd, installing Debian's
# freecad-python3 (which provides it) when it is missing.
freecadcmd_path() {
  local c
  for c in freecadcmd freecadcmd-python3 FreeCADCmd; do
    command -v "$c" && return 0
  done
  echo "installing FreeCAD (freecad-python3) with apt-get" >&2
  local sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get -o DPkg::Lock::Timeout=1200 update -q >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=1200 install -y -q --no-install-recommends freecad-python3 >&2
  for c in freecadcmd freecadcmd-python3 FreeCADCmd; do
    command -v "$c" && return 0
  done
  echo "freecad-python3 installed no freecadcmd" >&2
  return 1
}

# desktop_path prints the path of desktop FreeCAD, installing what the
# desktop test needs when missing: Debian's freecad (with its recommends,
# as a user gets it), Xvfb, ImageMagick (import) and xdotool.
desktop_path() {
  local tools= sudo= apt
  command -v Xvfb >/dev/null || tools="$tools xvfb"
  command -v import >/dev/null || tools="$tools imagemagick"
  command -v xdotool >/dev/null || tools="$tools xdotool"
  if [ -n "$tools" ] || ! command -v freecad >/dev/null; then
    [ "$(id -u)" = 0 ] || sudo=sudo
    apt="$sudo apt-get -o DPkg::Lock::Timeout=1200"
    echo "installing with apt-get:$tools$(command -v freecad >/dev/null || echo ' freecad')" >&2
    $apt update -q >&2
    if ! command -v freecad >/dev/null; then
      DEBIAN_FRONTEND=noninteractive $apt install -y -q freecad >&2
    fi
    if [ -n "$tools" ]; then
      # shellcheck disable=SC2086 # one word per package
      DEBIAN_FRONTEND=noninteractive $apt install -y -q --no-install-recommends $tools >&2
    fi
  fi
  command -v freecad || { echo "the freecad package installed no freecad command" >&2; return 1; }
}

# start_xvfb WORKDIR starts an Xvfb screen; sets xvfb_pid and DISPLAY.
start_xvfb() {
  local work=$1 _
  Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
  xvfb_pid=$!
  for _ in $(seq 100); do
    [ -s "$work/display" ] && break
    kill -0 "$xvfb_pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$work/display" ] || { cat "$work/xvfb.log" >&2; echo "Xvfb did not start" >&2; return 1; }
  export DISPLAY=:$(cat "$work/display")
}

# free_port prints a TCP port nothing listens on now.
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# desktop_profile WORKDIR PORT makes a fresh FreeCAD profile, as a user
# has it: HOME=WORKDIR/home with the macro and cadbase copied into the
# user macro folder (sets macros), and WORKDIR/user.cfg setting the
# MCPBridge port to PORT (FreeCAD's -u).
desktop_profile() {
  local dir work=$1
  dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  macros=$work/home/.local/share/FreeCAD/Macro
  mkdir -p "$macros"
  cp -r "$dir/MCPBridgeBase.FCMacro" "$dir/cadbase" "$macros/"
  sed "s/PORT/$2/" >"$work/user.cfg" <<'EOF'
<?xml version="1.0" encoding="UTF-8" standalone="no" ?>
<FCParameters>
  <FCParamGroup Name="Root">
    <FCParamGroup Name="BaseApp">
      <FCParamGroup Name="Preferences">
        <FCParamGroup Name="Mod">
          <FCParamGroup Name="MCPBridge">
            <FCInt Name="Port" Value="PORT"/>
          </FCParamGroup>
        </FCParamGroup>
      </FCParamGroup>
    </FCParamGroup>
  </FCParamGroup>
</FCParameters>
EOF
}

# start_desktop FREECAD WORKDIR starts desktop FreeCAD on a new Xvfb
# screen, as a user would with a fresh profile (desktop_profile), the
# macro run at start, guiprobe.py beside it. Sets xvfb_pid, desktop_pid,
# desktop_addr and DISPLAY; waits up to two minutes for the base's
# "listening on" line.
start_desktop() {
  local dir work=$2
  dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  start_xvfb "$work" || return 1
  mkdir -p "$work/probe"
  desktop_profile "$work" "$(free_port)"
  # As root, the start page (Qt WebEngine, that is Chromium) needs --no-sandbox.
  HOME=$work/home CAD_MCP_PROBE=$work/probe QTWEBENGINE_CHROMIUM_FLAGS=--no-sandbox \
    "$1" -u "$work/user.cfg" "$macros/MCPBridgeBase.FCMacro" "$dir/guiprobe.py" >"$work/freecad.out" 2>"$work/freecad.err" &
  desktop_pid=$!
  wait_listening "$work/freecad.out" "$desktop_pid" 'MCP base: listening on '
  desktop_addr=$(sed -n 's/^.*MCP base: listening on \([0-9.:]*\).*$/\1/p' "$work/freecad.out")
  if [ -z "$desktop_addr" ]; then
    tail -n 30 "$work/freecad.out" "$work/freecad.err" >&2
    echo "desktop FreeCAD did not start the base within two minutes" >&2
    return 1
  fi
}

# wait_listening FILE PID LINE waits, up to two minutes (FreeCAD takes
# seconds to start), until FILE holds LINE (the base's "listening on") or
# PID has exited.
wait_listening() {
  local _
  for _ in $(seq 1200); do
    grep -qF "$3" "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 0
    sleep 0.1
  done
}

# stop_desktop ends what start_desktop started and still runs. (No
# `kill && wait`: under set -e, a killed process's status would end the
# trap that calls this before the next kill.)
stop_desktop() {
  local p
  for p in ${desktop_pid:-} ${xvfb_pid:-}; do
    if kill "$p" 2>/dev/null; then wait "$p" 2>/dev/null || true; fi
  done
  desktop_pid= xvfb_pid=
  return 0
}

# start_base FREECADCMD WORKDIR starts the headless base on a free port and
# sets base_pid and base_addr. FreeCAD takes seconds to start: it waits for
# the "listening on" line for up to two minutes.
start_base() {
  CAD_MCP_FREECAD_PORT=0 "$1" "$(dirname "${BASH_SOURCE[0]}")/headless.py" >"$2/base.out" 2>"$2/base.err" &
  base_pid=$!
  wait_listening "$2/base.out" "$base_pid" 'listening on '
  base_addr=$(sed -n 's/^.*listening on //p' "$2/base.out")
  if [ -z "$base_addr" ]; then
    cat "$2/base.out" "$2/base.err" >&2
    return 1
  fi
}

# stop_base stops the base started by start_base.
stop_base() {
  if [ -n "${base_pid:-}" ]; then
    if kill "$base_pid" 2>/dev/null; then wait "$base_pid" 2>/dev/null || true; fi
    base_pid=
  fi
  return 0
}
