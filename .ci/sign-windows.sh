#!/usr/bin/env bash
# sign-windows.sh FILE OS UNIXTIME: GoReleaser's post-build hook (see
# .goreleaser.yaml). For a Windows binary, signs FILE in place
# (Authenticode, SHA-256, osslsigncode) when MCP_BRIDGE_SIGN_PKCS12 names a
# PKCS#12 file holding the code-signing certificate and its key (its
# password in MCP_BRIDGE_SIGN_PASSWORD). The signing time is UNIXTIME, the
# commit's, and FILE keeps that date, so two builds of one commit stay
# identical; with MCP_BRIDGE_SIGN_TIMESTAMP_URL a timestamp authority
# countersigns instead (what a published release wants: the signature then
# stays valid after the certificate expires). Without a certificate it says
# the binary is unsigned. A certificate that cannot sign fails the build:
# never an unsigned binary where a signed one was asked for.
set -euo pipefail
file=$1 os=$2 when=$3
[ "$os" = windows ] || exit 0
if [ -z "${MCP_BRIDGE_SIGN_PKCS12:-}" ]; then
  echo "sign: $file is UNSIGNED (no certificate: MCP_BRIDGE_SIGN_PKCS12 is not set)"
  exit 0
fi
if [ -n "${MCP_BRIDGE_SIGN_TIMESTAMP_URL:-}" ]; then
  stamp=(-ts "$MCP_BRIDGE_SIGN_TIMESTAMP_URL")
else
  stamp=(-time "$when")
fi
tmp="$file.signing"
trap 'rm -f "$tmp"' EXIT
# The password goes through stdin, not the command line (ps shows that).
if ! out=$(printf '%s\n' "${MCP_BRIDGE_SIGN_PASSWORD:-}" | osslsigncode sign -pkcs12 "$MCP_BRIDGE_SIGN_PKCS12" -readpass - \
  -h sha256 -n mcp-bridge -i https://github.com/mcp-bridge/mcp-bridge "${stamp[@]}" -in "$file" -out "$tmp" 2>&1); then
  echo "sign: FAIL could not sign $file with $MCP_BRIDGE_SIGN_PKCS12:" >&2
  echo "$out" >&2
  exit 1
fi
chmod --reference="$file" "$tmp"
mv -f "$tmp" "$file"
touch -d "@$when" "$file"
echo "sign: $file signed"
