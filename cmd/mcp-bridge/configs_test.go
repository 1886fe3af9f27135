package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
)

// TestConfigExamplesMatchPrintConfig keeps configs/ in the shape that
// --print-config produces for each client: same keys at every level.
func TestConfigExamplesMatchPrintConfig(t *testing.T) {
	files, _ := filepath.Glob("../../configs/*.json")
	if len(files) < 6 {
		t.Fatalf("found %d example configs", len(files))
	}
	for _, f := range files {
		client := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(client, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var example any
			if err := json.Unmarshal(b, &example); err != nil {
				t.Fatalf("%s is not valid JSON: %v", f, err)
			}
			out, errs, code := runCLI(t, nil, "", "--print-config", "--client", client)
			if code != 0 {
				t.Fatalf("--print-config --client %s: %s", client, errs)
			}
			var printed any
			_ = json.Unmarshal([]byte(out), &printed)
			if diff := cmp.Diff(keys(printed, ""), keys(example, "")); diff != "" {
				t.Errorf("%s differs in shape from --print-config (-printed +example):\n%s", f, diff)
			}
		})
	}
}

// keys lists the object key paths in v.
func keys(v any, prefix string) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for k, val := range m {
		out = append(out, prefix+"/"+k)
		out = append(out, keys(val, prefix+"/"+k)...)
	}
	sort.Strings(out)
	return out
}

// TestReadmesNameEveryClient: docs/clients.md's install table has a command for
// every client install knows, and configs/README.md a row with its id.
func TestReadmesNameEveryClient(t *testing.T) {
	readme, err := os.ReadFile("../../docs/clients.md")
	if err != nil {
		t.Fatal(err)
	}
	configs, err := os.ReadFile("../../configs/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clientconf.Clients {
		command := "| `mcp-bridge install --client " + c.ID
		if c.Paste != "" {
			command = "| `mcp-bridge --print-config --client " + c.ID
		}
		if !strings.Contains(string(readme), command) && !strings.Contains(string(readme), "(`"+c.ID+"`) |") {
			t.Errorf("docs/clients.md's install table has no row for %s (%s)", c.Name, command)
		}
		if !strings.Contains(string(configs), "`"+c.ID+"`") {
			t.Errorf("configs/README.md does not name %s (`%s`)", c.Name, c.ID)
		}
	}
}
