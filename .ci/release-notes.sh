#!/usr/bin/env bash
# release-notes.sh VERSION [CHANGELOG]: prints the section of CHANGELOG.md
# (Keep a Changelog form) for VERSION, without its heading: the release
# notes GoReleaser publishes (`goreleaser release --release-notes FILE`).
# VERSION is "1.2.3" (a leading v is dropped) or "Unreleased". Fails, and
# so stops a release, when the section is missing or empty.
set -euo pipefail
want=${1:?usage: release-notes.sh VERSION [CHANGELOG]}
want=${want#v}
file=${2:-"$(dirname "$0")/../CHANGELOG.md"}
notes=$(awk -v want="$want" '
  /^## \[/ { if (found) exit; v = $0; sub(/^## \[/, "", v); sub(/\].*/, "", v); if (v == want) { found = 1; next } }
  /^\[[^]]*\]: / { if (found) exit }
  found { print }
  END { if (!found) exit 3 }
' "$file") || { echo "release-notes: $file has no section \"## [$want]\"" >&2; exit 1; }
# Trim blank lines at both ends.
notes=$(printf '%s\n' "$notes" | sed -e '/./,$!d')
if [ -z "$notes" ]; then
  echo "release-notes: the section \"## [$want]\" of $file is empty" >&2; exit 1
fi
printf '%s\n' "$notes"
