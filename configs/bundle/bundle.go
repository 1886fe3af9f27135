// Package bundle builds the release artifacts that describe the bridge to
// clients: the Claude Desktop bundle (.mcpb: a zip with manifest.json, the
// icon and the binary) and server.json for the MCP Registry.
package bundle

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"time"
)

// License is the SPDX identifier of the project's licence (LICENSE).
const License = "MIT"

// Platform is one bundle's target: the mcpb platform name, the Go OS and
// architecture it is built for, and the binary that goes in it.
type Platform struct {
	MCPB   string // "win32", "darwin" or "linux"
	GOOS   string // "windows", "darwin" or "linux"
	GOARCH string // "amd64" or "arm64"
	Binary string // path of the built executable
}

// entryPoint is where the binary sits inside the bundle.
func (p Platform) entryPoint() string {
	if p.MCPB == "win32" {
		return "server/mcp-bridge.exe"
	}
	return "server/mcp-bridge"
}

// Manifest is manifest.json (manifest_version 0.3) for one platform. Host
// and port are user settings with defaults: Claude Desktop passes a
// setting without a value as the literal "${user_config.x}", which the
// bridge treats as unset anyway. The tools are the user's CAD program's,
// known only when it runs: the manifest lists none and says they are
// generated (a list read from the simulated base would show tools the
// user's CAD may not have).
func Manifest(version string, p Platform) ([]byte, error) {
	m := map[string]any{
		"manifest_version": "0.3",
		"name":             "mcp-bridge",
		"display_name":     "CAD (mcp-bridge)",
		"version":          version,
		"description":      "Drive the CAD program open on this machine: draw, list, move and save through its MCP base.",
		"long_description": "mcp-bridge connects Claude to a CAD program whose plug-in serves tools over raw TCP (the \"base\"). The CAD program must be running with its MCP base enabled; without it, tools are listed from the last session and calls say that CAD is not running.",
		"author":           map[string]any{"name": "mcp-bridge contributors", "url": "https://github.com/mcp-bridge/mcp-bridge"},
		"repository":       map[string]any{"type": "git", "url": "https://github.com/mcp-bridge/mcp-bridge"},
		"homepage":         "https://github.com/mcp-bridge/mcp-bridge",
		"support":          "https://github.com/mcp-bridge/mcp-bridge/issues",
		"license":          License,
		"icon":             iconPath,
		"server": map[string]any{
			"type":        "binary",
			"entry_point": p.entryPoint(),
			"mcp_config": map[string]any{
				"command": "${__dirname}/server/mcp-bridge",
				"args":    []string{},
				"env": map[string]string{
					"CAD_MCP_HOST": "${user_config.host}",
					"CAD_MCP_PORT": "${user_config.port}",
				},
				"platform_overrides": map[string]any{
					"win32": map[string]any{"command": "${__dirname}/server/mcp-bridge.exe"},
				},
			},
		},
		"tools_generated": true,
		// Each bundle holds one OS's binary, so it names that OS alone.
		"compatibility": map[string]any{"platforms": []string{p.MCPB}},
		"user_config": map[string]any{
			"host": map[string]any{
				"type": "string", "title": "CAD base host", "default": "127.0.0.1", "required": false,
				"description": "Where the CAD program's MCP base listens. Keep 127.0.0.1 unless CAD runs on another machine (the base protocol has no authentication).",
			},
			"port": map[string]any{
				"type": "number", "title": "CAD base port", "default": 8080, "min": 1, "max": 65535, "required": false,
				"description": "The TCP port of the CAD program's MCP base.",
			},
		},
		"keywords": []string{"cad", "autocad", "drawing", "bridge"},
	}
	return indented(m)
}

// indented is v as indented JSON, with <, > and & as they are (the files
// are read by people and by JSON readers, never embedded in HTML).
func indented(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// iconPath is where the icon sits inside the bundle.
const iconPath = "icon.png"

// WriteMCPB writes the bundle: manifest.json, the icon and the binary (mode
// 0755), every entry dated modTime, so that one commit always gives the
// same bytes.
func WriteMCPB(w io.Writer, manifest []byte, p Platform, modTime time.Time) error {
	bin, err := os.ReadFile(p.Binary)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	for _, f := range []struct {
		name string
		mode os.FileMode
		data []byte
	}{{"manifest.json", 0o644, manifest}, {iconPath, 0o644, Icon()}, {p.entryPoint(), 0o755, bin}} {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: modTime.UTC()}
		h.SetMode(f.mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// FileSHA256 is the hex SHA-256 of a file.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
