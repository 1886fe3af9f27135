package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

func TestMCPBIsReproducibleAndExecutable(t *testing.T) {
	bin := filepath.Join(testdir.New(t), "mcp-bridge")
	os.WriteFile(bin, []byte("\x7fELF pretend"), 0o755)
	p := Platform{MCPB: "linux", Binary: bin}
	m, err := Manifest("1.2.3", []Tool{{Name: "draw_line", Description: "Draw a line"}}, p)
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
				Tools      []Tool
			}
			if err := json.Unmarshal(body, &man); err != nil {
				t.Fatal(err)
			}
			if man.ManifestVersion != "0.3" || man.Server.Type != "binary" || man.Server.EntryPoint != "server/mcp-bridge" || len(man.Tools) != 1 {
				t.Errorf("manifest %+v", man)
			}
			for _, k := range []string{"host", "port"} {
				if man.UserConfig[k].Default == nil {
					t.Errorf("user_config.%s has no default: Claude Desktop would pass ${user_config.%s}", k, k)
				}
			}
		}
	}
	if got["server/mcp-bridge"] != 0o755 || got["manifest.json"] != 0o644 {
		t.Errorf("modes %v", got)
	}
	w, _ := Manifest("1", nil, Platform{MCPB: "win32"})
	if !bytes.Contains(w, []byte(`"entry_point": "server/mcp-bridge.exe"`)) || !bytes.Contains(w, []byte(`"command": "${__dirname}/server/mcp-bridge.exe"`)) {
		t.Errorf("win32 manifest:\n%s", w)
	}
}

func TestServerJSONChecksTheHash(t *testing.T) {
	dir := testdir.New(t)
	f := filepath.Join(dir, "b.mcpb")
	os.WriteFile(f, []byte("bundle"), 0o644)
	sum, _ := FileSHA256(f)
	where := func(string) string { return f }
	good, _ := ServerJSON("1.0.0", []Package{{URL: "https://x/b.mcpb", SHA256: sum}})
	if err := CheckServerJSON(good, where); err != nil {
		t.Errorf("good: %v", err)
	}
	bad, _ := ServerJSON("1.0.0", []Package{{URL: "https://x/b.mcpb", SHA256: "00" + sum[2:]}})
	if err := CheckServerJSON(bad, where); err == nil {
		t.Errorf("a wrong fileSha256 passed")
	}
}
