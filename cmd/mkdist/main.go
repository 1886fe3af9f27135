// Command mkdist adds to a GoReleaser dist folder what GoReleaser does not
// make: a Claude Desktop bundle (.mcpb) per OS (macOS: arm64 and amd64)
// and server.json for the MCP Registry, then checks them
// (bundle.CheckServerJSON, which opens every bundle). `make dist` runs it
// after `goreleaser release --snapshot`. `mkdist archive` packs one
// platform's release archive, as GoReleaser's, from a binary already built
// (make archive).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/bundle"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mkdist:", err)
		os.Exit(1)
	}
}

// artifact is the part of GoReleaser's dist/artifacts.json used here.
type artifact struct {
	Name, Path, Goos, Goarch, Type string
}

func run(args []string) error {
	if len(args) > 0 && args[0] == "archive" {
		return runArchive(args[1:])
	}
	fs := pflag.NewFlagSet("mkdist", pflag.ContinueOnError)
	dist := fs.String("dist", "dist", "GoReleaser's output folder")
	base := fs.String("download-url", "https://github.com/mcp-bridge/mcp-bridge/releases/download", "where releases are downloaded from (server.json identifiers)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var meta struct {
		Version, Tag string
	}
	if err := readJSON(filepath.Join(*dist, "metadata.json"), &meta); err != nil {
		return err
	}
	var arts []artifact
	if err := readJSON(filepath.Join(*dist, "artifacts.json"), &arts); err != nil {
		return err
	}
	// One bundle per OS and architecture that Claude Desktop runs on:
	// Windows amd64 (arm64 Windows runs it too), macOS arm64 and amd64,
	// Linux amd64. (No universal macOS binary: GoReleaser's is not
	// reproducible, the order of its two halves varies from run to run.)
	targets := []struct{ mcpb, goos, goarch string }{
		{"darwin", "darwin", "arm64"}, {"darwin", "darwin", "amd64"}, {"linux", "linux", "amd64"}, {"win32", "windows", "amd64"},
	}
	var pkgs []bundle.Package
	for _, t := range targets {
		var bin string
		for _, a := range arts {
			if a.Type == "Binary" && a.Goos == t.goos && a.Goarch == t.goarch {
				bin = a.Path
			}
		}
		if bin == "" {
			return fmt.Errorf("no %s/%s binary in artifacts.json", t.goos, t.goarch)
		}
		// Every entry dated like the binary: GoReleaser gives it the
		// commit's time (mod_timestamp), so bundles are reproducible too.
		st, err := os.Stat(bin)
		if err != nil {
			return err
		}
		modTime := st.ModTime()
		p := bundle.Platform{MCPB: t.mcpb, GOOS: t.goos, GOARCH: t.goarch, Binary: bin}
		manifest, err := bundle.Manifest(meta.Version, p)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := bundle.WriteMCPB(&buf, manifest, p, modTime); err != nil {
			return err
		}
		name := fmt.Sprintf("mcp-bridge_%s_%s_%s.mcpb", meta.Version, t.mcpb, t.goarch)
		out := filepath.Join(*dist, name)
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			return err
		}
		sum, err := bundle.FileSHA256(out)
		if err != nil {
			return err
		}
		pkgs = append(pkgs, bundle.Package{
			URL:    fmt.Sprintf("%s/v%s/%s", strings.TrimRight(*base, "/"), meta.Version, name),
			SHA256: sum, GOOS: t.goos, GOARCH: t.goarch,
		})
		fmt.Printf("%s  %s\n", sum, out)
	}
	sj, err := bundle.ServerJSON(meta.Version, pkgs)
	if err != nil {
		return err
	}
	sjPath := filepath.Join(*dist, "server.json")
	if err := os.WriteFile(sjPath, sj, 0o644); err != nil {
		return err
	}
	if err := bundle.CheckServerJSON(sj, func(url string) string { return filepath.Join(*dist, filepath.Base(url)) }); err != nil {
		return fmt.Errorf("server.json: %w", err)
	}
	fmt.Println(sjPath)
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}
