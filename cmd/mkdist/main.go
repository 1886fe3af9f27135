// Command mkdist adds to a GoReleaser dist folder what GoReleaser does not
// make: a Claude Desktop bundle (.mcpb) per OS (macOS: arm64 and amd64), its tools list read from
// the simulated CAD base, and server.json for the MCP Registry. `make dist`
// runs it after `goreleaser release --snapshot`.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/bundle"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
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
	tools, err := simTools()
	if err != nil {
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
		p := bundle.Platform{MCPB: t.mcpb, Binary: bin}
		manifest, err := bundle.Manifest(meta.Version, tools, p)
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
		pkgs = append(pkgs, bundle.Package{URL: fmt.Sprintf("%s/v%s/%s", strings.TrimRight(*base, "/"), meta.Version, name), SHA256: sum})
		fmt.Printf("%s  %s (%d tools)\n", sum, out, len(tools))
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

// simTools asks the simulated base for its tools, over TCP as the bridge
// would.
func simTools() ([]bundle.Tool, error) {
	s, err := simbase.Start("127.0.0.1:0", simbase.Options{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := &tcpbase.Client{Addr: s.Addr(), ConnectTimeout: 3 * time.Second}
	ans, err := c.Call(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		return nil, err
	}
	var r struct {
		Result struct{ Tools []bundle.Tool }
	}
	if err := json.Unmarshal(ans, &r); err != nil {
		return nil, err
	}
	if len(r.Result.Tools) == 0 {
		return nil, errors.New("the simulated base lists no tools")
	}
	return r.Result.Tools, nil
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
