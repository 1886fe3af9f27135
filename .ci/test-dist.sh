#!/usr/bin/env bash
# make test-dist: `make dist` as a release with a certificate would run it,
# with a throwaway self-signed code-signing certificate made here by
# openssl (never kept): the Windows binaries are signed, and .ci/dist.sh
# verifies their signatures against that certificate. Before that, the
# signing hook's other two answers: without a certificate it leaves the
# binary as it is and says it is unsigned; with a certificate it cannot
# use (a wrong password) it fails rather than ship an unsigned binary. And
# .ci/release-notes.sh on a changelog made here; after make dist, a
# release as for a tag (nothing published), whose notes must be
# CHANGELOG.md's.
# Usage: .ci/test-dist.sh [quick]   (quick: all but the make dist run)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

openssl req -x509 -newkey rsa:3072 -nodes -days 2 -subj "/CN=mcp-bridge throwaway test signer" \
  -addext "extendedKeyUsage=codeSigning" -addext "keyUsage=critical,digitalSignature" \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
pass=$(openssl rand -hex 16)
openssl pkcs12 -export -inkey "$work/key.pem" -in "$work/cert.pem" -out "$work/sign.p12" -passout "pass:$pass"
rm "$work/key.pem"

# The hook on a small Windows program, both ways that do not sign.
printf 'package main\nfunc main() {}\n' >"$work/main.go"
(cd "$work" && GOOS=windows GOARCH=amd64 CGO_ENABLED=0 GO111MODULE=off $GO build -o hello.exe main.go)
cp "$work/hello.exe" "$work/orig.exe"
out=$(env -u MCP_BRIDGE_SIGN_PKCS12 .ci/sign-windows.sh "$work/hello.exe" windows 0)
case "$out" in *UNSIGNED*) ;; *) echo "test-dist: FAIL no certificate, and the hook did not say unsigned: $out"; exit 1 ;; esac
cmp -s "$work/hello.exe" "$work/orig.exe" || { echo "test-dist: FAIL the hook changed a binary it did not sign"; exit 1; }
if MCP_BRIDGE_SIGN_PKCS12=$work/sign.p12 MCP_BRIDGE_SIGN_PASSWORD=wrong .ci/sign-windows.sh "$work/hello.exe" windows 0 >/dev/null 2>&1; then
  echo "test-dist: FAIL the hook passed with a wrong certificate password"; exit 1
fi
cmp -s "$work/hello.exe" "$work/orig.exe" || { echo "test-dist: FAIL a failed signing changed the binary"; exit 1; }
echo "test-dist: ok   unsigned without a certificate (and said so); a certificate that cannot sign fails"

# The release notes: exactly the version's section, or no release.
cat >"$work/CHANGELOG.md" <<'CL'
# Changelog

## [Unreleased]

## [1.1.0] - 2026-12-24

### Fixed
- one

## [1.0.0] - 2026-12-01

### Added
- two

[1.1.0]: https://example.invalid/v1.1.0
CL
got=$(.ci/release-notes.sh v1.1.0 "$work/CHANGELOG.md")
want=$'### Fixed\n- one'
[ "$got" = "$want" ] || { echo "test-dist: FAIL notes for v1.1.0:"; echo "$got"; exit 1; }
got=$(.ci/release-notes.sh 1.0.0 "$work/CHANGELOG.md")
want=$'### Added\n- two'
[ "$got" = "$want" ] || { echo "test-dist: FAIL notes for 1.0.0:"; echo "$got"; exit 1; }
for v in Unreleased 2.0.0 1.1; do
  if .ci/release-notes.sh "$v" "$work/CHANGELOG.md" >/dev/null 2>&1; then
    echo "test-dist: FAIL release notes for $v (empty or missing) were accepted"; exit 1
  fi
done
echo "test-dist: ok   release notes: a version's section alone; an empty or missing one refused"

# quick: only the checks above (seconds; .ci/run runs these, not the whole
# of make dist, whose GoReleaser build alone takes over 10 minutes on a
# fresh machine).
[ "${1:-}" = quick ] && exit 0

export MCP_BRIDGE_SIGN_PKCS12=$work/sign.p12 MCP_BRIDGE_SIGN_PASSWORD=$pass MCP_BRIDGE_SIGN_CAFILE=$work/cert.pem
GO=$GO .ci/dist.sh

# The release path, which snapshot mode skips: for a tag, GoReleaser takes
# the notes .ci/release-notes.sh gives it and publishes them (here: puts
# them in the winget manifest; nothing is published). A made-up tag whose
# section is this changelog's section of the source's version; into
# bin/release-check, so make dist's dist/ stays as it was.
code_version=$(.ci/version.sh)
sed "s/^## \[$code_version\] - .*/## [0.0.0-test] - 2026-01-01/" CHANGELOG.md >"$work/CHANGELOG-tagged.md"
.ci/release-notes.sh v0.0.0-test "$work/CHANGELOG-tagged.md" >"$work/notes.md"
{ cat .goreleaser.yaml; echo "dist: bin/release-check"; } >"$work/goreleaser.yaml"
if ! git ls-remote --get-url >/dev/null 2>&1 || [ "$(git ls-remote --get-url 2>/dev/null)" = origin ]; then
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/mcp-bridge/mcp-bridge
fi
GORELEASER_CURRENT_TAG=v0.0.0-test bin/tools/goreleaser release -f "$work/goreleaser.yaml" --clean \
  --skip=publish,validate,announce --release-notes "$work/notes.md" >"$work/release.log" 2>&1 ||
  { cat "$work/release.log"; echo "test-dist: FAIL goreleaser release (not snapshot)"; exit 1; }
node verify/clients/manifests.mjs bin/release-check MIT "$work/notes.md"
rm -rf bin/release-check
echo "test-dist: ok   a tagged release takes its notes from CHANGELOG.md"
