// Package bundle builds the release artifacts that describe the bridge to
// clients: the Claude Desktop bundle (.mcpb: a zip with manifest.json and
// the binary) and server.json for the MCP Registry.
package bundle

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Tool is one entry of the manifest's tools list.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Platform is one bundle's target: the mcpb platform name and the binary
// that goes in it.
type Platform struct {
	MCPB   string // "win32", "darwin" or "linux"
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
// bridge treats as unset anyway.
func Manifest(version string, tools []Tool, p Platform) ([]byte, error) {
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
		"tools":         tools,
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
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(m)
	return buf.Bytes(), err
}

// WriteMCPB writes the bundle: manifest.json and the binary, mode 0755,
// every entry dated modTime, so that one commit always gives the same bytes.
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
	}{{"manifest.json", 0o644, manifest}, {p.entryPoint(), 0o755, bin}} {
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

// Package is one downloadable bundle in server.json.
type Package struct {
	URL    string
	SHA256 string
}

// ServerJSON is the MCP Registry entry (schema 2025-12-11): one mcpb
// package per bundle, each with the file's SHA-256.
func ServerJSON(version string, pkgs []Package) ([]byte, error) {
	var list []map[string]any
	for _, p := range pkgs {
		list = append(list, map[string]any{
			"registryType": "mcpb",
			"identifier":   p.URL,
			"version":      version,
			"fileSha256":   p.SHA256,
			"transport":    map[string]any{"type": "stdio"},
			"environmentVariables": []map[string]any{
				{"name": "CAD_MCP_HOST", "description": "the CAD base's host", "default": "127.0.0.1", "format": "string"},
				{"name": "CAD_MCP_PORT", "description": "the CAD base's TCP port", "default": "8080", "format": "number"},
			},
		})
	}
	doc := map[string]any{
		"$schema":     "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
		"name":        "io.github.mcp-bridge/mcp-bridge",
		"title":       "CAD (mcp-bridge)",
		"description": "Lets MCP clients drive a CAD program through its raw-TCP MCP base.",
		"version":     version,
		"repository":  map[string]any{"url": "https://github.com/mcp-bridge/mcp-bridge", "source": "github"},
		"packages":    list,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(doc)
	return buf.Bytes(), err
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

// CheckServerJSON checks what the registry requires of server.json
// (schema 2025-12-11: name, description, version; each package's
// registryType, identifier, transport; an mcpb package's fileSha256) and
// that each fileSha256 matches the bundle at file(url).
func CheckServerJSON(b []byte, file func(url string) string) error {
	var doc struct {
		Name, Description, Version string
		Packages                   []struct {
			RegistryType, Identifier, FileSha256 string
			Transport                            *struct{ Type string }
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	if doc.Name == "" || doc.Description == "" || doc.Version == "" || len(doc.Packages) == 0 {
		return fmt.Errorf("server.json lacks name, description, version or packages")
	}
	for _, p := range doc.Packages {
		if p.RegistryType != "mcpb" || p.Identifier == "" || p.Transport == nil || p.Transport.Type != "stdio" {
			return fmt.Errorf("package %q: registryType, identifier or transport missing", p.Identifier)
		}
		sum, err := FileSHA256(file(p.Identifier))
		if err != nil {
			return err
		}
		if sum != p.FileSha256 {
			return fmt.Errorf("package %q: fileSha256 %s, the file has %s", p.Identifier, p.FileSha256, sum)
		}
	}
	return nil
}
