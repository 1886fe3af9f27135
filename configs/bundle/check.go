package bundle

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"slices"
)

// mcpbPlatforms maps Go's OS names to the manifest's platform names.
var mcpbPlatforms = map[string]string{"windows": "win32", "darwin": "darwin", "linux": "linux"}

// CheckMCPB opens the bundle at path as Claude Desktop would and checks
// that it is what a user may trust: its manifest names the licence, lists
// no tools of its own (the CAD program's are generated at run time), points
// to an icon that is a PNG in the bundle, and names goos as its one
// platform; and the binary at its entry point is built for goos and goarch
// (read from the executable's own header).
func CheckMCPB(path, goos, goarch string) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer zr.Close()
	read := func(name string) ([]byte, error) {
		f, err := zr.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	raw, err := read("manifest.json")
	if err != nil {
		return err
	}
	var m struct {
		License        string
		Icon           string
		Tools          []json.RawMessage
		ToolsGenerated bool `json:"tools_generated"`
		Server         struct {
			EntryPoint string `json:"entry_point"`
		}
		Compatibility struct{ Platforms []string }
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("%s: manifest.json: %w", path, err)
	}
	switch {
	case m.License != License:
		return fmt.Errorf("%s: licence %q, want %q", path, m.License, License)
	case !m.ToolsGenerated || len(m.Tools) != 0:
		return fmt.Errorf("%s: tools_generated %v with %d tools listed; the tools are the CAD program's: none listed, tools_generated true", path, m.ToolsGenerated, len(m.Tools))
	case !slices.Equal(m.Compatibility.Platforms, []string{mcpbPlatforms[goos]}):
		return fmt.Errorf("%s: compatibility.platforms %q, want [%q] for %s", path, m.Compatibility.Platforms, mcpbPlatforms[goos], goos)
	}
	icon, err := read(m.Icon)
	if err != nil {
		return fmt.Errorf("icon: %w", err)
	}
	if _, err := png.DecodeConfig(bytes.NewReader(icon)); err != nil {
		return fmt.Errorf("%s: icon %s is not a PNG: %v", path, m.Icon, err)
	}
	bin, err := read(m.Server.EntryPoint)
	if err != nil {
		return err
	}
	gotOS, gotArch, err := BinaryTarget(bin)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", path, m.Server.EntryPoint, err)
	}
	if gotOS != goos || gotArch != goarch {
		return fmt.Errorf("%s: %s is built for %s/%s, the package says %s/%s", path, m.Server.EntryPoint, gotOS, gotArch, goos, goarch)
	}
	return nil
}

// BinaryTarget says which OS and architecture (Go's names) an executable
// is built for, from its header: ELF is taken as Linux, Mach-O as macOS,
// PE as Windows.
func BinaryTarget(b []byte) (goos, goarch string, err error) {
	r := bytes.NewReader(b)
	switch {
	case bytes.HasPrefix(b, []byte("\x7fELF")):
		f, err := elf.NewFile(r)
		if err != nil {
			return "", "", err
		}
		return "linux", map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine], nil
	case bytes.HasPrefix(b, []byte("MZ")):
		f, err := pe.NewFile(r)
		if err != nil {
			return "", "", err
		}
		return "windows", map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine], nil
	default:
		f, err := macho.NewFile(r)
		if err != nil {
			return "", "", fmt.Errorf("not an ELF, PE or Mach-O executable")
		}
		return "darwin", map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu], nil
	}
}
