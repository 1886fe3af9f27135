package bundle

import (
	"encoding/json"
	"fmt"
)

// Package is one downloadable bundle in server.json.
type Package struct {
	URL          string
	SHA256       string
	GOOS, GOARCH string // what the bundle's binary runs on
}

// publisherMeta is server.json's key for what the publisher adds. The
// registry's schema (2025-12-11) gives a package no field for its OS or
// architecture (a proposal to add one, registry PR #865, was closed), and
// the registry drops fields it does not know; this extension object is
// the one place the schema leaves for it.
const publisherMeta = "io.modelcontextprotocol.registry/publisher-provided"

// PackagePlatform is one entry of the publisher metadata's packages list:
// which OS and architecture the package with that identifier is for.
type PackagePlatform struct {
	Identifier string `json:"identifier"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
}

// ServerJSON is the MCP Registry entry (schema 2025-12-11): one mcpb
// package per bundle, each with the file's SHA-256; the licence and each
// package's OS and architecture in the publisher-provided metadata.
func ServerJSON(version string, pkgs []Package) ([]byte, error) {
	var list []map[string]any
	var platforms []PackagePlatform
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
		platforms = append(platforms, PackagePlatform{Identifier: p.URL, OS: p.GOOS, Arch: p.GOARCH})
	}
	doc := map[string]any{
		"$schema":     "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
		"name":        "io.github.mcp-bridge/mcp-bridge",
		"title":       "CAD (mcp-bridge)",
		"description": "Lets MCP clients drive a CAD program through its raw-TCP MCP base.",
		"version":     version,
		"repository":  map[string]any{"url": "https://github.com/mcp-bridge/mcp-bridge", "source": "github"},
		"packages":    list,
		"_meta": map[string]any{
			publisherMeta: map[string]any{"license": License, "packages": platforms},
		},
	}
	return indented(doc)
}

// CheckServerJSON checks what the registry requires of server.json
// (schema 2025-12-11: name, description, version; each package's
// registryType, identifier, transport; an mcpb package's fileSha256), that
// each fileSha256 matches the bundle at file(url), that the publisher
// metadata names the licence and says once for every package which OS and
// architecture it is for, and that the bundle is for exactly that
// (CheckMCPB).
func CheckServerJSON(b []byte, file func(url string) string) error {
	var doc struct {
		Name, Description, Version string
		Packages                   []struct {
			RegistryType, Identifier, FileSha256 string
			Transport                            *struct{ Type string }
		}
		Meta map[string]struct {
			License  string
			Packages []PackagePlatform
		} `json:"_meta"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	if doc.Name == "" || doc.Description == "" || doc.Version == "" || len(doc.Packages) == 0 {
		return fmt.Errorf("server.json lacks name, description, version or packages")
	}
	meta := doc.Meta[publisherMeta]
	if meta.License != License {
		return fmt.Errorf("_meta[%q].license is %q, want %q", publisherMeta, meta.License, License)
	}
	platform := map[string]PackagePlatform{}
	for _, pp := range meta.Packages {
		if _, dup := platform[pp.Identifier]; dup {
			return fmt.Errorf("_meta[%q] names package %q twice", publisherMeta, pp.Identifier)
		}
		platform[pp.Identifier] = pp
	}
	if len(platform) != len(doc.Packages) {
		return fmt.Errorf("_meta[%q] names %d packages, server.json has %d", publisherMeta, len(platform), len(doc.Packages))
	}
	for _, p := range doc.Packages {
		if p.RegistryType != "mcpb" || p.Identifier == "" || p.Transport == nil || p.Transport.Type != "stdio" {
			return fmt.Errorf("package %q: registryType, identifier or transport missing", p.Identifier)
		}
		pp, ok := platform[p.Identifier]
		if !ok {
			return fmt.Errorf("package %q: no OS and architecture in _meta[%q]", p.Identifier, publisherMeta)
		}
		sum, err := FileSHA256(file(p.Identifier))
		if err != nil {
			return err
		}
		if sum != p.FileSha256 {
			return fmt.Errorf("package %q: fileSha256 %s, the file has %s", p.Identifier, p.FileSha256, sum)
		}
		if err := CheckMCPB(file(p.Identifier), pp.OS, pp.Arch); err != nil {
			return fmt.Errorf("package %q: %w", p.Identifier, err)
		}
	}
	return nil
}
