#!/usr/bin/env bash
# make dist: a release in snapshot mode, checked end to end.
#   GoReleaser v2.15.1 (installed with `go install` when missing): static
#   binaries for windows/darwin/linux × amd64/arm64, the Windows ones signed
#   when a certificate is given (below), zip on Windows and tar.gz
#   elsewhere with LICENSE and CHANGELOG.md, checksums.txt, Scoop and
#   winget manifests (generated, not published), with the release notes
#   from CHANGELOG.md; then cmd/mkdist: a Claude Desktop bundle (.mcpb) per
#   OS (two for macOS: arm64, amd64) and server.json for the MCP Registry.
# Signing: MCP_BRIDGE_SIGN_PKCS12 (a PKCS#12 file with the code-signing
#   certificate and key) and MCP_BRIDGE_SIGN_PASSWORD sign the Windows
#   binaries (.ci/sign-windows.sh, osslsigncode; installed with apt-get
#   when missing); the signatures are then verified against the system's
#   CAs, or MCP_BRIDGE_SIGN_CAFILE. Without a certificate the binaries are
#   unsigned, and it says so. `make test-dist` signs with a throwaway
#   certificate (.ci/test-dist.sh).
# Checks: `goreleaser check`; the release notes are the version's section
# of CHANGELOG.md; two builds of the commit give identical binaries;
# `mcpb validate` (@anthropic-ai/mcpb pinned in verify/clients) on the
# manifest inside each bundle, and mkdist's own check of every bundle
# (licence, no tools listed, icon, platform, the binary's OS and
# architecture); server.json against the registry's schema; the Scoop and
# winget manifests against the rules of their formats; the licence in the
# archives; the linux/amd64 binary from its archive and from its bundle
# answers --version with the stamped version and commit.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
start=$(date +%s)
version=v2.15.1
tools=$(pwd)/bin/tools
gr=$tools/goreleaser
if ! [ -x "$gr" ] || ! "$gr" --version 2>/dev/null | grep -q "${version#v}"; then
  echo "dist: installing goreleaser $version into $tools"
  GOBIN=$tools $GO install "github.com/goreleaser/goreleaser/v2@$version"
fi
"$gr" check

signed=
if [ -n "${MCP_BRIDGE_SIGN_PKCS12:-}" ]; then
  signed=1
  if ! command -v osslsigncode >/dev/null; then
    echo "dist: installing osslsigncode (apt-get)"
    sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get -o DPkg::Lock::Timeout=1200 update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=1200 install -y -q --no-install-recommends osslsigncode
  fi
  if [ -n "${MCP_BRIDGE_SIGN_TIMESTAMP_URL:-}" ]; then
    # A timestamp differs from run to run, and this compares two builds.
    echo "dist: MCP_BRIDGE_SIGN_TIMESTAMP_URL ignored here (release.yml uses it)"
    unset MCP_BRIDGE_SIGN_TIMESTAMP_URL
  fi
fi

# The version: the one the source states (main.version, what a plain go
# build reports); a tag on HEAD must name the same. The snapshot is built
# as that version (.goreleaser.yaml's version_template reads it here).
code_version=$(.ci/version.sh)
export MCP_BRIDGE_VERSION=$code_version
tag=$(git describe --tags --exact-match 2>/dev/null || true)
if [ -n "$tag" ] && [ "${tag#v}" != "$code_version" ]; then
  echo "dist: FAIL the tag $tag on HEAD is not the source's version $code_version (cmd/mcp-bridge/version.go)"; exit 1
fi

# The release notes: the section of CHANGELOG.md for that version.
# GoReleaser takes them with --release-notes (in snapshot mode it does not
# publish them; release.yml passes the same file on a tag).
mkdir -p bin
notes=bin/release-notes.md
.ci/release-notes.sh "$code_version" >"$notes"
echo "dist: ok   release notes: section [$code_version] of CHANGELOG.md, $(wc -l <"$notes") lines"

# GoReleaser reads the commit and its date from git, but gives up on all
# of it (commit "none", date now: not reproducible) when the clone has no
# remote. Name one for its git calls only; the repository is not changed.
if ! git ls-remote --get-url >/dev/null 2>&1 || [ "$(git ls-remote --get-url 2>/dev/null)" = origin ]; then
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/mcp-bridge/mcp-bridge
fi

# Reproducible: build once, keep the binaries' sums, release, compare.
"$gr" build --snapshot --clean
first=$(cd dist && find . -type f \( -name mcp-bridge -o -name mcp-bridge.exe \) -print0 | sort -z | xargs -0 sha256sum)
"$gr" release --snapshot --clean --release-notes "$notes"
second=$(cd dist && find . -type f \( -name mcp-bridge -o -name mcp-bridge.exe \) -print0 | sort -z | xargs -0 sha256sum)
if [ "$first" != "$second" ]; then
  diff <(echo "$first") <(echo "$second") || true
  echo "dist: FAIL two builds of one commit gave different binaries"; exit 1
fi
echo "dist: ok   two builds gave identical binaries ($(echo "$second" | wc -l) files)"

$GO run ./cmd/mkdist --dist dist

# The pinned clients (mcpb, ajv), installed and checked as verify/clients/run.sh does.
verify/clients/install.sh
mcpb() { (cd verify/clients && npx --no-install mcpb "$@"); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
meta_version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
meta_commit=$(sed -n 's/.*"commit":"\([^"]*\)".*/\1/p' dist/metadata.json)
for b in dist/*.mcpb; do
  plat=$(basename "$b" .mcpb); plat=${plat#mcp-bridge_"$meta_version"_}
  mcpb unpack "$(pwd)/$b" "$work/$plat" >/dev/null
  mcpb validate "$work/$plat/manifest.json"
done
"$work/linux_amd64/server/mcp-bridge" --version | grep -q "mcp-bridge $meta_version" ||
  { echo "dist: FAIL the linux bundle's binary is not $meta_version"; exit 1; }

schema=$($GO mod download -json github.com/modelcontextprotocol/registry@v1.8.9 | sed -n 's/.*"Dir": "\(.*\)",/\1/p')/internal/validators/schemas/2025-12-11.json
node verify/clients/serverjson.mjs "$schema" dist/server.json

mkdir "$work/tar"
tar -xzf dist/mcp-bridge_"$meta_version"_linux_amd64.tar.gz -C "$work/tar"
out=$("$work/tar/mcp-bridge" --version)
echo "$out"
case "$out" in
  *"mcp-bridge $meta_version"*"commit $meta_commit"*) ;;
  *) echo "dist: FAIL linux/amd64 --version does not show $meta_version and $meta_commit"; exit 1 ;;
esac
# The server the bridge announces carries the stamped version too.
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"dist","version":"1"}}}'
echo "$init" | "$work/tar/mcp-bridge" --port 1 --no-cache --log-level error | grep -q "\"serverInfo\":{[^}]*\"version\":\"$meta_version\"" ||
  { echo "dist: FAIL serverInfo does not carry $meta_version"; exit 1; }
echo "dist: ok   --version and serverInfo say $meta_version"
(cd dist && sha256sum -c checksums.txt >/dev/null) && echo "dist: ok   checksums.txt matches the archives"
ls dist/*.zip dist/*.tar.gz dist/*.mcpb dist/server.json dist/checksums.txt dist/scoop/mcp-bridge.json >/dev/null
node verify/clients/manifests.mjs dist MIT
for a in dist/*.tar.gz dist/*.zip; do
  case $a in *.zip) unzip -Z1 "$a" ;; *) tar -tzf "$a" ;; esac >"$work/list"
  grep -qx LICENSE "$work/list" || { echo "dist: FAIL $a has no LICENSE"; exit 1; }
done
echo "dist: ok   LICENSE (MIT) in every archive"
# The layout make archive gives (cmd/mkdist's list): the same files, the
# FreeCAD base in freecad/ beside the binary.
$GO run ./cmd/mkdist archive --binary "$work/tar/mcp-bridge" --os linux --arch amd64 --version "$meta_version" --out "$work/quick" >/dev/null
diff <(tar -tzf dist/mcp-bridge_"$meta_version"_linux_amd64.tar.gz | sort) <(tar -tzf "$work/quick/mcp-bridge_${meta_version}_linux_amd64.tar.gz" | sort) ||
  { echo "dist: FAIL GoReleaser's linux archive (<) and make archive's (>) hold different files"; exit 1; }
[ -f "$work/tar/freecad/MCPBridgeBase.FCMacro" ] && [ -f "$work/tar/freecad/cadbase/base.py" ] ||
  { echo "dist: FAIL the FreeCAD base (freecad/MCPBridgeBase.FCMacro, freecad/cadbase/) is not beside the binary"; exit 1; }
echo "dist: ok   the archives hold what make archive packs, the FreeCAD base in freecad/"

# The signatures users get: the .exe in each zip and in the Windows bundle.
exes=()
for a in dist/*_windows_*.zip; do
  d="$work/sig/$(basename "$a" .zip)"; mkdir -p "$d"
  unzip -q "$a" mcp-bridge.exe -d "$d"; exes+=("$d/mcp-bridge.exe")
done
exes+=("$work/win32_amd64/server/mcp-bridge.exe")
if [ -n "$signed" ]; then
  ca=${MCP_BRIDGE_SIGN_CAFILE:-/etc/ssl/certs/ca-certificates.crt}
  for e in "${exes[@]}"; do
    osslsigncode verify -CAfile "$ca" -in "$e" >"$work/verify.out" 2>&1 ||
      { cat "$work/verify.out"; echo "dist: FAIL $e: the signature does not verify"; exit 1; }
  done
  echo "dist: ok   the Windows binaries are signed and verify (${#exes[@]} checked, CA file $ca)"
else
  echo "dist: the Windows binaries are UNSIGNED (no certificate: set MCP_BRIDGE_SIGN_PKCS12 and MCP_BRIDGE_SIGN_PASSWORD)"
fi
echo "dist: done in $(( $(date +%s) - start ))s"
