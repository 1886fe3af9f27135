# Shared by run-tests.sh and demo.sh (sourced, not run): find or install
# FreeCAD's freecadcmd, start and stop the headless FreeCAD base.

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

# start_base FREECADCMD WORKDIR starts the headless base on a free port and
# sets base_pid and base_addr. FreeCAD takes seconds to start: it waits for
# the "listening on" line for up to two minutes.
start_base() {
  CAD_MCP_FREECAD_PORT=0 "$1" "$(dirname "${BASH_SOURCE[0]}")/headless.py" >"$2/base.out" 2>"$2/base.err" &
  base_pid=$!
  local _
  for _ in $(seq 1200); do
    grep -q 'listening on ' "$2/base.out" 2>/dev/null && break
    kill -0 "$base_pid" 2>/dev/null || break
    sleep 0.1
  done
  base_addr=$(sed -n 's/^.*listening on //p' "$2/base.out")
  if [ -z "$base_addr" ]; then
    cat "$2/base.out" "$2/base.err" >&2
    return 1
  fi
}

# stop_base stops the base started by start_base.
stop_base() {
  if [ -n "${base_pid:-}" ]; then
    kill "$base_pid" 2>/dev/null && wait "$base_pid" 2>/dev/null
    base_pid=
  fi
  return 0
}
