// Command mkdist adds to a GoReleaser dist folder what GoReleaser does not
// make: a Claude Desktop bundle (.mcpb) per OS, its tools list read from
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
		Version, Tag, Date string
	}
	if err := readJSON(filepath.Join(*dist, "metadata.json"), &meta); err != nil {
		return err
	}
	var arts []artifact
	if err := readJSON(filepath.Join(*dist, "artifacts.json"), &arts); err != nil {
		return err
	}
	modTime, err := time.Parse(time.RFC3339, meta.Date)
	if err != nil {
		return fmt.Errorf("metadata.json date %q: %v", meta.Date, err)
	}
	tools, err := simTools()
	if err != nil {
		return err
	}
	// One bundle per OS: Windows amd64 (arm64 Windows runs it too), the
	// universal macOS binary, Linux amd64.
	want := map[string]func(artifact) bool{
		"win32":  func(a artifact) bool { return a.Type == "Binary" && a.Goos == "windows" && a.Goarch == "amd64" },
		"darwin": func(a artifact) bool { return a.Type == "Universal Binary" && a.Goos == "darwin" },
		"linux":  func(a artifact) bool { return a.Type == "Binary" && a.Goos == "linux" && a.Goarch == "amd64" },
	}
	var pkgs []bundle.Package
	for _, plat := range []string{"darwin", "linux", "win32"} {
		var bin string
		for _, a := range arts {
			if want[plat](a) {
				bin = a.Path
			}
		}
		if bin == "" {
			return fmt.Errorf("no binary for %s in artifacts.json", plat)
		}
		p := bundle.Platform{MCPB: plat, Binary: bin}
		manifest, err := bundle.Manifest(meta.Version, tools, p)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := bundle.WriteMCPB(&buf, manifest, p, modTime); err != nil {
			return err
		}
		name := fmt.Sprintf("mcp-bridge_%s_%s.mcpb", meta.Version, plat)
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
