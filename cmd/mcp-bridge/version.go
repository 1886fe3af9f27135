package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// version is this source's release, what a plain `go build` reports.
// CHANGELOG.md's newest release section names the same one
// (TestChangelogNamesTheVersion). A release build may stamp another with
// -ldflags "-X main.version=…" (GoReleaser gives the tag's).
var version = "0.1.0"

// commit and date say which source a binary was built from: stamped with
// -ldflags "-X main.commit=… -X main.date=…" by GoReleaser; otherwise
// they come from the build information that go build records in a git
// checkout (buildStamp).
var (
	commit = ""
	date   = ""
)

// buildStamp is the commit and date of this build: the stamped ones, or
// those of the build information (vcs.revision, vcs.time), the commit
// marked when the checkout had changes not committed; "" when neither
// knows (go run, a build outside git).
func buildStamp(info *debug.BuildInfo, ok bool) (string, string) {
	if commit != "" || !ok || info == nil {
		return commit, date
	}
	var rev, at, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "", ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += " with changes not committed"
	}
	return rev, at
}

// printVersion is --version: the version on the first line (what doctor
// and scripts read), then the commit and date when they are known.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "mcp-bridge %s\n", version)
	c, d := buildStamp(debug.ReadBuildInfo())
	switch {
	case c != "" && d != "":
		fmt.Fprintf(w, "commit %s, built %s\n", c, d)
	case c != "":
		fmt.Fprintf(w, "commit %s\n", c)
	}
}
