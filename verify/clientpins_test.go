package verify

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestClientPinCheck: verify/clients/checkpins.mjs, which decides whether
// the clients `make test` drives are the pinned ones, fails naming the
// package when a pinned version is not what is locked or installed, and
// does not fail when the lockfile holds one more optional package for
// another OS (what a registry that starts serving one makes npm write).
func TestClientPinCheck(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("needs Node.js on the host (the check runs before the clients, outside Wine)")
	}
	src := filepath.Join("clients")
	pkg := readJSONFile(t, filepath.Join(src, "package.json"))
	lock := readJSONFile(t, filepath.Join(src, "package-lock.json"))
	const inspector = "@modelcontextprotocol/inspector"

	cases := []struct {
		name     string
		edit     func(lock map[string]any, installed map[string]string)
		wantFail string // "" for success
		lockOnly bool
	}{
		{name: "as committed", edit: func(map[string]any, map[string]string) {}},
		{
			name: "extra optional package for another OS",
			edit: func(lock map[string]any, _ map[string]string) {
				packages(lock)["node_modules/some-win32-only-helper"] = map[string]any{
					"version": "0.0.1", "optional": true, "os": []any{"win32"}, "cpu": []any{"x64"},
				}
			},
		},
		{
			name: "lockfile locks another Inspector",
			edit: func(lock map[string]any, _ map[string]string) {
				packages(lock)["node_modules/"+inspector].(map[string]any)["version"] = "2.11.0"
			},
			wantFail: inspector + ": package.json pins 2.12.0, package-lock.json locks 2.11.0",
			lockOnly: true,
		},
		{
			name: "another Inspector installed",
			edit: func(_ map[string]any, installed map[string]string) {
				installed[inspector] = "2.13.0"
			},
			wantFail: inspector + ": package.json pins 2.12.0, node_modules holds 2.13.0",
		},
		{
			name: "a pinned package missing from node_modules",
			edit: func(_ map[string]any, installed map[string]string) {
				delete(installed, "@modelcontextprotocol/sdk")
			},
			wantFail: "@modelcontextprotocol/sdk: package.json pins 1.32.2, node_modules holds nothing",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testdir.New(t)
			lock := clone(t, lock)
			installed := map[string]string{}
			for name, v := range pkg["dependencies"].(map[string]any) {
				installed[name] = v.(string)
			}
			c.edit(lock, installed)
			writeJSONFile(t, filepath.Join(dir, "package.json"), pkg)
			writeJSONFile(t, filepath.Join(dir, "package-lock.json"), lock)
			for name, v := range installed {
				writeJSONFile(t, filepath.Join(dir, "node_modules", name, "package.json"), map[string]any{"name": name, "version": v})
			}
			for _, args := range [][]string{{"--lock-only"}, nil} {
				if args == nil && c.lockOnly {
					continue
				}
				cmd := exec.Command(node, append([]string{filepath.Join(src, "checkpins.mjs"), dir}, args...)...)
				out, err := cmd.CombinedOutput()
				lockStage := args != nil
				shouldFail := c.wantFail != "" && (!lockStage || c.lockOnly)
				switch {
				case shouldFail && err == nil:
					t.Fatalf("%v: passed; want a failure naming %q\n%s", args, c.wantFail, out)
				case shouldFail && !strings.Contains(string(out), c.wantFail):
					t.Fatalf("%v: failed without naming the package and versions (want %q):\n%s", args, c.wantFail, out)
				case !shouldFail && err != nil:
					t.Fatalf("%v: failed: %v\n%s", args, err, out)
				}
			}
		})
	}
}

// TestCheckedWithThePinnedClients: what doctor says a client's own program
// showed names the npm package make test-clients runs, in the version
// verify/realclients pins; a pin moved without doctor's words fails here.
func TestCheckedWithThePinnedClients(t *testing.T) {
	pins := readJSONFile(t, filepath.Join("realclients", "package.json"))["dependencies"].(map[string]any)
	npm := regexp.MustCompile(`\(npm (\S+) (\S+)\)`)
	checked := 0
	for _, c := range clientconf.Clients {
		if c.CheckedWith == "" {
			continue
		}
		checked++
		m := npm.FindStringSubmatch(c.CheckedWith)
		if m == nil {
			t.Errorf("%s: %q names no npm package and version", c.ID, c.CheckedWith)
			continue
		}
		if pin, _ := pins[m[1]].(string); pin != m[2] {
			t.Errorf("%s: doctor says %s %s was run, verify/realclients/package.json pins %q", c.ID, m[1], m[2], pin)
		}
	}
	if checked == 0 {
		t.Error("no client says what its own program showed")
	}
}

func packages(lock map[string]any) map[string]any { return lock["packages"].(map[string]any) }

func readJSONFile(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

func writeJSONFile(t *testing.T, name string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func clone(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(v)
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}
