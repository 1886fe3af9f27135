package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

const repoRoot = "../.."

// TestGoReleaserPacksTheSameFiles: .goreleaser.yaml's archives.files is
// archiveFiles, entry for entry, each with a folder stripped of its
// source's parents (so that make dist and make archive lay the release
// out alike).
func TestGoReleaserPacksTheSameFiles(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, strip, err := goreleaserFiles(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(archiveFiles, got, cmp.AllowUnexported(archiveFile{})); diff != "" {
		t.Errorf(".goreleaser.yaml's archives.files differ from cmd/mkdist's archiveFiles (-mkdist +goreleaser):\n%s", diff)
	}
	for i, f := range got {
		if f.dst != "" && !strip[i] {
			t.Errorf(".goreleaser.yaml: %s has dst %s without strip_parent: true (the file would land under its source's folders)", f.src, f.dst)
		}
	}
}

// TestArchiveLayout: the archive of each kind holds the binary (mode
// 0755), the licence and the FreeCAD base laid out as launch-command
// looks for it: freecad/MCPBridgeBase.FCMacro with freecad/cadbase/ beside
// it, every module of the base there.
func TestArchiveLayout(t *testing.T) {
	dir := testdir.New(t) // a t.TempDir that Wine can remove
	bin := filepath.Join(dir, "bin")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	modules, _ := filepath.Glob(filepath.Join(repoRoot, "tcpbase/freecad/cadbase/*.py"))
	for _, goos := range []string{"linux", "windows"} {
		out := filepath.Join(dir, goos)
		if err := run([]string{"archive", "--binary", bin, "--os", goos, "--arch", "amd64", "--version", "9.9.9", "--out", out, "--root", repoRoot}); err != nil {
			t.Fatal(err)
		}
		names, modes := readArchive(t, filepath.Join(out, archiveName("9.9.9", goos, "amd64")))
		exe := map[string]string{"linux": "mcp-bridge", "windows": "mcp-bridge.exe"}[goos]
		want := []string{exe, "LICENSE", "README.md", "CHANGELOG.md", "docs/launch.md", "configs/README.md", "configs/policy.example.jsonc",
			"freecad/MCPBridgeBase.FCMacro", "freecad/cadbase/tools.json"}
		for _, m := range modules {
			want = append(want, "freecad/cadbase/"+filepath.Base(m))
		}
		for _, w := range want {
			if !slices.Contains(names, w) {
				t.Errorf("%s archive lacks %s: %v", goos, w, names)
			}
		}
		if modes[exe]&0o111 == 0 || modes["LICENSE"]&0o111 != 0 {
			t.Errorf("%s archive: modes %v", goos, modes)
		}
	}
	if err := run([]string{"archive", "--binary", bin, "--os", "linux", "--arch", "amd64", "--version", "1", "--out", dir, "--root", dir}); err == nil {
		t.Errorf("an archive from a folder without the files was made")
	}
}

func readArchive(t *testing.T, path string) ([]string, map[string]os.FileMode) {
	t.Helper()
	modes := map[string]os.FileMode{}
	var names []string
	if filepath.Ext(path) == ".zip" {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			names = append(names, f.Name)
			modes[f.Name] = f.Mode()
		}
		return names, modes
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		modes[h.Name] = os.FileMode(h.Mode)
	}
	return names, modes
}
