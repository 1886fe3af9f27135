package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// fakeExecutable is the smallest header of an executable for goos/goarch
// that Go's debug packages parse: what BinaryTarget reads, without building
// a binary per target in the test.
func fakeExecutable(goos, goarch string) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	switch goos {
	case "linux":
		machine := map[string]uint16{"amd64": 62, "arm64": 183}[goarch]
		b.Write([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0})
		for _, v := range []any{uint16(2), machine, uint32(1), uint64(0), uint64(0), uint64(0), uint32(0),
			uint16(64), uint16(56), uint16(0), uint16(64), uint16(0), uint16(0)} {
			binary.Write(&b, le, v)
		}
	case "darwin":
		cpu := map[string]uint32{"amd64": 0x01000007, "arm64": 0x0100000c}[goarch]
		for _, v := range []uint32{0xfeedfacf, cpu, 0, 2, 0, 0, 0, 0} {
			binary.Write(&b, le, v)
		}
	case "windows":
		machine := map[string]uint16{"amd64": 0x8664, "arm64": 0xaa64}[goarch]
		dos := make([]byte, 64)
		copy(dos, "MZ")
		le.PutUint32(dos[0x3c:], 64)
		b.Write(dos)
		b.WriteString("PE\x00\x00")
		for _, v := range []any{machine, uint16(0), uint32(0), uint32(0), uint32(0), uint16(0), uint16(0x22)} {
			binary.Write(&b, le, v)
		}
	}
	// Room for what the readers read whole (pe.NewFile: 96 bytes of DOS header).
	b.Write(make([]byte, 128))
	return b.Bytes()
}

// writeBundle makes a bundle for goos/goarch in dir from the manifest Manifest
// writes, changed by edit first when edit is not nil, and returns its path.
func writeBundle(t *testing.T, dir, goos, goarch string, edit func(m map[string]any)) string {
	t.Helper()
	p := Platform{MCPB: mcpbPlatforms[goos], GOOS: goos, GOARCH: goarch, Binary: filepath.Join(dir, goos+"-"+goarch+".bin")}
	if err := os.WriteFile(p.Binary, fakeExecutable(goos, goarch), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest, err := Manifest("1.2.3", p)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		var m map[string]any
		json.Unmarshal(manifest, &m)
		edit(m)
		manifest, _ = json.Marshal(m)
	}
	out := filepath.Join(dir, goos+"_"+goarch+".mcpb")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := WriteMCPB(f, manifest, p, time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMCPBIsReproducibleAndExecutable(t *testing.T) {
	bin := filepath.Join(testdir.New(t), "mcp-bridge")
	os.WriteFile(bin, []byte("\x7fELF pretend"), 0o755)
	p := Platform{MCPB: "linux", GOOS: "linux", GOARCH: "amd64", Binary: bin}
	m, err := Manifest("1.2.3", p)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	var a, b bytes.Buffer
	if err := WriteMCPB(&a, m, p, when); err != nil {
		t.Fatal(err)
	}
	WriteMCPB(&b, m, p, when)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("two bundles of the same input differ")
	}
	zr, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]os.FileMode{}
	for _, f := range zr.File {
		got[f.Name] = f.Mode().Perm()
		if f.Name == "manifest.json" {
			rc, _ := f.Open()
			body, _ := io.ReadAll(rc)
			var man struct {
				ManifestVersion string `json:"manifest_version"`
				Server          struct {
					Type       string
					EntryPoint string `json:"entry_point"`
				}
				UserConfig map[string]struct{ Default any } `json:"user_config"`
			}
			if err := json.Unmarshal(body, &man); err != nil {
				t.Fatal(err)
			}
			if man.ManifestVersion != "0.3" || man.Server.Type != "binary" || man.Server.EntryPoint != "server/mcp-bridge" {
				t.Errorf("manifest %+v", man)
			}
			for _, k := range []string{"host", "port"} {
				if man.UserConfig[k].Default == nil {
					t.Errorf("user_config.%s has no default: Claude Desktop would pass ${user_config.%s}", k, k)
				}
			}
		}
	}
	if got["server/mcp-bridge"] != 0o755 || got["manifest.json"] != 0o644 || got["icon.png"] != 0o644 {
		t.Errorf("modes %v", got)
	}
	w, _ := Manifest("1", Platform{MCPB: "win32"})
	if !bytes.Contains(w, []byte(`"entry_point": "server/mcp-bridge.exe"`)) || !bytes.Contains(w, []byte(`"command": "${__dirname}/server/mcp-bridge.exe"`)) {
		t.Errorf("win32 manifest:\n%s", w)
	}
}

// What Claude Desktop shows before the user's CAD has run: no tools of the
// simulated base, the licence, an icon, and the one OS the bundle is for.
func TestManifestTellsTheTruth(t *testing.T) {
	for _, goos := range []string{"windows", "darwin", "linux"} {
		m, err := Manifest("1.2.3", Platform{MCPB: mcpbPlatforms[goos], GOOS: goos, GOARCH: "amd64"})
		if err != nil {
			t.Fatal(err)
		}
		var man map[string]any
		json.Unmarshal(m, &man)
		if _, listed := man["tools"]; listed || man["tools_generated"] != true {
			t.Errorf("%s: tools %v, tools_generated %v: the CAD program's tools are known only at run time", goos, man["tools"], man["tools_generated"])
		}
		if man["license"] != "MIT" || man["icon"] != "icon.png" {
			t.Errorf("%s: license %v, icon %v", goos, man["license"], man["icon"])
		}
		plats, _ := man["compatibility"].(map[string]any)["platforms"].([]any)
		if len(plats) != 1 || plats[0] != mcpbPlatforms[goos] {
			t.Errorf("%s: compatibility.platforms %v", goos, plats)
		}
	}
}

func TestIconIsAReproduciblePNG(t *testing.T) {
	a, b := Icon(), Icon()
	if !bytes.Equal(a, b) {
		t.Fatal("two icons differ")
	}
	img, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds().Size(); got.X != IconSize || got.Y != IconSize {
		t.Errorf("icon is %v", got)
	}
	// Rounded corners are transparent; the middle of the square is not.
	if _, _, _, alpha := img.At(2, 2).RGBA(); alpha != 0 {
		t.Errorf("corner alpha %d", alpha)
	}
	if _, _, _, alpha := img.At(IconSize/2, IconSize/2).RGBA(); alpha != 0xffff {
		t.Errorf("centre alpha %d", alpha)
	}
}

func TestBinaryTarget(t *testing.T) {
	for _, goos := range []string{"windows", "darwin", "linux"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			gotOS, gotArch, err := BinaryTarget(fakeExecutable(goos, goarch))
			if err != nil || gotOS != goos || gotArch != goarch {
				t.Errorf("%s/%s: read as %s/%s, %v", goos, goarch, gotOS, gotArch, err)
			}
		}
	}
	if _, _, err := BinaryTarget([]byte("#!/bin/sh\n")); err == nil {
		t.Error("a script passed as an executable")
	}
}

func TestCheckMCPB(t *testing.T) {
	dir := testdir.New(t)
	for _, goos := range []string{"windows", "darwin", "linux"} {
		if err := CheckMCPB(writeBundle(t, dir, goos, "arm64", nil), goos, "arm64"); err != nil {
			t.Errorf("%s/arm64: %v", goos, err)
		}
	}
	good := writeBundle(t, dir, "darwin", "arm64", nil)
	if err := CheckMCPB(good, "darwin", "amd64"); err == nil || !strings.Contains(err.Error(), "built for darwin/arm64") {
		t.Errorf("an arm64 bundle passed as amd64: %v", err)
	}
	for name, edit := range map[string]func(map[string]any){
		"simulated tools listed": func(m map[string]any) { m["tools"] = []map[string]string{{"name": "draw_line"}} },
		"tools not generated":    func(m map[string]any) { delete(m, "tools_generated") },
		"no licence":             func(m map[string]any) { delete(m, "license") },
		"icon not in bundle":     func(m map[string]any) { m["icon"] = "missing.png" },
		"icon not a PNG":         func(m map[string]any) { m["icon"] = "manifest.json" },
		"every platform": func(m map[string]any) {
			m["compatibility"] = map[string]any{"platforms": []string{"darwin", "win32", "linux"}}
		},
	} {
		if err := CheckMCPB(writeBundle(t, dir, "darwin", "arm64", edit), "darwin", "arm64"); err == nil {
			t.Errorf("%s: passed", name)
		}
	}
}

func TestServerJSONChecksHashAndPlatform(t *testing.T) {
	dir := testdir.New(t)
	arm := writeBundle(t, dir, "darwin", "arm64", nil)
	win := writeBundle(t, dir, "windows", "amd64", nil)
	sumOf := func(f string) string { s, _ := FileSHA256(f); return s }
	where := func(url string) string { return filepath.Join(dir, filepath.Base(url)) }
	pkg := func(f, goos, goarch string) Package {
		return Package{URL: "https://x/" + filepath.Base(f), SHA256: sumOf(f), GOOS: goos, GOARCH: goarch}
	}
	good, _ := ServerJSON("1.0.0", []Package{pkg(arm, "darwin", "arm64"), pkg(win, "windows", "amd64")})
	if err := CheckServerJSON(good, where); err != nil {
		t.Errorf("good: %v", err)
	}
	var doc map[string]any
	json.Unmarshal(good, &doc)
	meta := doc["_meta"].(map[string]any)[publisherMeta].(map[string]any)
	if meta["license"] != "MIT" || len(meta["packages"].([]any)) != 2 {
		t.Errorf("publisher metadata %v", meta)
	}

	wrongSum := pkg(arm, "darwin", "arm64")
	wrongSum.SHA256 = "00" + wrongSum.SHA256[2:]
	wrongArch := pkg(arm, "darwin", "amd64")
	wrongOS := pkg(win, "linux", "amd64")
	for name, pkgs := range map[string][]Package{
		"wrong fileSha256": {wrongSum},
		"wrong arch":       {wrongArch},
		"wrong OS":         {wrongOS},
	} {
		b, _ := ServerJSON("1.0.0", pkgs)
		if err := CheckServerJSON(b, where); err == nil {
			t.Errorf("%s: passed", name)
		}
	}
	// A package the metadata does not place, and metadata without the licence.
	for name, edit := range map[string]func(meta map[string]any){
		"package without platform": func(meta map[string]any) { meta["packages"] = meta["packages"].([]any)[:1] },
		"platform of no package": func(meta map[string]any) {
			meta["packages"] = append(meta["packages"].([]any), map[string]any{"identifier": "https://x/other.mcpb", "os": "linux", "arch": "amd64"})
		},
		"no licence": func(meta map[string]any) { delete(meta, "license") },
	} {
		var d map[string]any
		json.Unmarshal(good, &d)
		edit(d["_meta"].(map[string]any)[publisherMeta].(map[string]any))
		b, _ := json.Marshal(d)
		if err := CheckServerJSON(b, where); err == nil {
			t.Errorf("%s: passed", name)
		}
	}
}
