#!/bin/sh
# version.sh: the source's version (main.version in
# cmd/mcp-bridge/version.go, what a plain go build reports), for make
# archive and make dist. Fails when it cannot be read.
v=$(sed -n 's/^var version = "\(.*\)"$/\1/p' "$(dirname "$0")/../cmd/mcp-bridge/version.go")
[ -n "$v" ] || { echo 'version.sh: no var version = "…" in cmd/mcp-bridge/version.go' >&2; exit 1; }
echo "$v"
