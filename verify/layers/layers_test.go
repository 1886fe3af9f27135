package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A rule binds some of the project's packages and names the project
// packages they must never depend on. Only shipped code counts: the
// imports of non-test files, followed through every package they bring
// in (verify importing bridge/streamable would link the core as surely as
// importing it). Tests may reach up: verify/checks' tests run the core
// in-process, tcpbase's tests use verify.
//
// The layers, top down (docs/development.md draws them): cmd; the front
// ends and connect; the core (bridge); the gate (bridge/guard) and
// telemetry beside it; lifecycle; rpc. tcpbase, configs and verify stand
// apart from the core.
type rule struct {
	name   string            // the rule in words, printed with each breach
	covers func(string) bool // the packages it binds (paths inside the module)
	denies func(string) bool // what they must not depend on
}

var rules = []rule{
	{"rpc imports only the standard library (and its own sub-packages)",
		under("rpc"), not(under("rpc"))},
	{"lifecycle imports only rpc (and its own sub-packages)",
		under("lifecycle"), not(oneOf(under("lifecycle"), is("rpc")))},
	{"the gate (bridge/guard/...) never imports the core (bridge) nor telemetry",
		under("bridge/guard"), oneOf(is("bridge"), under("bridge/telemetry"))},
	{"telemetry never imports the core (bridge)",
		under("bridge/telemetry"), is("bridge")},
	{"connect is a client of a bridge, never the core (bridge)",
		under("bridge/connect"), is("bridge")},
	// Test helpers included: bridge/internal/bridgetest once imported
	// verify. verify's own test helpers (testdir) are for every test.
	{"nothing under bridge/ imports verify/..., which sits above it (verify's test helpers aside)",
		under("bridge"), allOf(under("verify"), not(testHelper))},
	// verify's shipped code stands beside the core: doctor reads a policy
	// file with bridge/guard/policy, bench makes a certificate with
	// bridge/streamable/tlscert; neither brings the core in.
	{"verify/... never imports the core (bridge), directly or through another package",
		under("verify"), is("bridge")},
	{"tcpbase imports only rpc and configs (the base has no lifecycle)",
		under("tcpbase"), not(oneOf(under("tcpbase"), is("rpc"), under("configs")))},
	{"configs imports only rpc (and its own sub-packages)",
		under("configs"), not(oneOf(under("configs"), is("rpc")))},
	{"nothing outside cmd imports cmd",
		not(under("cmd")), under("cmd")},
	{"no shipped code imports a test helper (*test, test*)",
		not(testHelper), testHelper},
}

// testHelper tells a package written for tests only: its name, or the
// name of a folder above it inside the module, begins or ends with "test"
// (bridge/internal/bridgetest, desktoptest, promtest, launchtest and its
// fakecad, verify/internal/testbin, verify/testdir).
func testHelper(path string) bool {
	for _, e := range strings.Split(path, "/") {
		if strings.HasPrefix(e, "test") || strings.HasSuffix(e, "test") {
			return true
		}
	}
	return false
}

func is(p string) func(string) bool { return func(s string) bool { return s == p } }

func under(p string) func(string) bool {
	return func(s string) bool { return s == p || strings.HasPrefix(s, p+"/") }
}

func not(f func(string) bool) func(string) bool { return func(s string) bool { return !f(s) } }

func allOf(fs ...func(string) bool) func(string) bool {
	return func(s string) bool {
		for _, f := range fs {
			if !f(s) {
				return false
			}
		}
		return true
	}
}

func oneOf(fs ...func(string) bool) func(string) bool {
	return func(s string) bool {
		for _, f := range fs {
			if f(s) {
				return true
			}
		}
		return false
	}
}

// A pkg is one package of the module as go list sees it for one system.
type pkg struct {
	dir     string   // its folder
	files   []string // its non-test Go files for that system
	imports []string // the project packages those files import, as paths inside the module
}

// A graph is the module's packages, by path inside the module
// ("lifecycle/clienterr").
type graph struct {
	module string // the module's import path
	pkgs   map[string]*pkg
}

// breaches lists every import in g that breaks one of rules. Each is
// reported at the import that crosses: the package's own import of a
// denied package, or of one that brings a denied package in (with the
// chain), unless that one is bound by the same rule and so reported
// itself.
func breaches(g graph, rules []rule) []string {
	var out []string
	for _, r := range rules {
		for _, from := range slices.Sorted(maps.Keys(g.pkgs)) {
			if !r.covers(from) {
				continue
			}
			for _, imp := range g.pkgs[from].imports {
				switch {
				case r.denies(imp):
					out = append(out, fmt.Sprintf("%s: package %s imports %s; rule: %s",
						where(g, from, imp), from, imp, r.name))
				case r.covers(imp):
					// imp's own imports answer to the same rule.
				default:
					if chain := pathTo(g, imp, r.denies); chain != nil {
						out = append(out, fmt.Sprintf("%s: package %s imports %s, which brings in %s (%s); rule: %s",
							where(g, from, imp), from, imp, chain[len(chain)-1], strings.Join(chain, " → "), r.name))
					}
				}
			}
		}
	}
	return out
}

// pathTo is the shortest chain of imports from start to a package denied
// reports, or nil when start depends on none.
func pathTo(g graph, start string, denied func(string) bool) []string {
	prev := map[string]string{start: ""}
	queue := []string{start}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if denied(p) {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		if g.pkgs[p] == nil {
			continue
		}
		for _, next := range g.pkgs[p].imports {
			if _, seen := prev[next]; !seen {
				prev[next] = p
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// where names the file and line of from's import of imp (the first file
// that imports it), or only the package when no file says.
func where(g graph, from, imp string) string {
	p := g.pkgs[from]
	for _, name := range p.files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, spec := range f.Imports {
			if path, _ := strconv.Unquote(spec.Path.Value); path == g.module+"/"+imp {
				return fmt.Sprintf("%s/%s:%d", from, name, fset.Position(spec.Pos()).Line)
			}
		}
	}
	return from
}

// systems are those the release is built for (make cross): build tags
// choose different files, and so imports, on each.
var systems = []string{"linux", "windows", "darwin"}

// load runs go list over the whole module for one system.
func load(root, goos string) (graph, error) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles,CgoFiles,Imports,Module", "./...")
	cmd.Dir = root
	cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH=amd64")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return graph{}, fmt.Errorf("GOOS=%s go list: %v\n%s", goos, err, stderr.String())
	}
	g := graph{pkgs: map[string]*pkg{}}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir   string
			GoFiles, CgoFiles []string
			Imports           []string
			Module            struct{ Path string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return graph{}, fmt.Errorf("GOOS=%s go list: %v", goos, err)
		}
		g.module = p.Module.Path
		rel, ok := strings.CutPrefix(p.ImportPath, g.module+"/")
		if g.module == "" || !ok {
			return graph{}, fmt.Errorf("GOOS=%s go list: %s is not inside the module (%q)", goos, p.ImportPath, g.module)
		}
		q := &pkg{dir: p.Dir, files: append(p.GoFiles, p.CgoFiles...)}
		for _, imp := range p.Imports {
			if r, ok := strings.CutPrefix(imp, g.module+"/"); ok {
				q.imports = append(q.imports, r)
			}
		}
		g.pkgs[rel] = q
	}
	return g, nil
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		t.Fatalf("go env GOMOD: %q, %v", gomod, err)
	}
	return filepath.Dir(gomod)
}

// TestImportsPointDown checks the module as it stands, for each system
// the release is built for.
func TestImportsPointDown(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		// Under Wine (make test-windows) there is no go command; the rules
		// are checked for every system from the Linux run (GOOS each).
		t.Skip("no go command to list the module's imports:", err)
	}
	root := moduleRoot(t)
	graphs := make([]graph, len(systems))
	errs := make([]error, len(systems))
	var wg sync.WaitGroup
	for i, goos := range systems {
		wg.Go(func() { graphs[i], errs[i] = load(root, goos) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	// Every rule must bind some package and deny some that exists: a
	// rule whose paths match nothing (a folder renamed) would pass
	// forever.
	g := graphs[0]
	for _, r := range rules {
		var covered, denied int
		for p := range g.pkgs {
			if r.covers(p) {
				covered++
			}
			if r.denies(p) {
				denied++
			}
		}
		if covered == 0 || denied == 0 {
			t.Errorf("rule %q binds %d packages and denies %d of this module's: its paths are out of date", r.name, covered, denied)
		}
	}

	// The same breach found on several systems is reported once.
	seen := map[string][]string{}
	var order []string
	for i, goos := range systems {
		for _, b := range breaches(graphs[i], rules) {
			if seen[b] == nil {
				order = append(order, b)
			}
			seen[b] = append(seen[b], goos)
		}
	}
	for _, b := range order {
		if len(seen[b]) < len(systems) {
			b += " (GOOS=" + strings.Join(seen[b], ",") + ")"
		}
		t.Error(b)
	}
}

// TestRulesCatchUpwardImports runs the rules over a small made-up module
// with one import on each side of each rule: the allowed ones pass, each
// upward one is named, with the chain when it goes through another
// package.
func TestRulesCatchUpwardImports(t *testing.T) {
	pkgs := map[string]*pkg{
		"rpc":                        {imports: []string{"configs/cut"}},
		"lifecycle":                  {imports: []string{"rpc", "lifecycle/clienterr", "configs/cut"}},
		"lifecycle/clienterr":        {imports: []string{"rpc"}},
		"bridge":                     {imports: []string{"lifecycle", "bridge/guard", "bridge/telemetry", "bridge/internal/bridgetest"}},
		"bridge/guard":               {imports: []string{"lifecycle", "bridge/guard/policy", "bridge/telemetry/health"}},
		"bridge/guard/policy":        {imports: []string{"rpc"}},
		"bridge/telemetry":           {imports: []string{"bridge/telemetry/health"}},
		"bridge/telemetry/health":    {imports: []string{"configs/cut"}},
		"bridge/telemetry/status":    {imports: []string{"bridge/telemetry/health", "bridge"}},
		"bridge/connect":             {imports: []string{"bridge/guard", "bridge/streamable/tlscert", "bridge/streamable"}},
		"bridge/streamable":          {imports: []string{"bridge", "bridge/streamable/tlscert"}},
		"bridge/streamable/tlscert":  {},
		"bridge/internal/bridgetest": {imports: []string{"verify/testdir", "bridge/guard/policy", "verify"}},
		"verify":                     {imports: []string{"rpc", "bridge/guard/policy", "bridge/streamable/tlscert"}},
		"verify/doctor":              {imports: []string{"verify", "bridge/streamable"}},
		"verify/testdir":             {},
		"tcpbase":                    {imports: []string{"rpc", "configs/cut", "lifecycle/clienterr"}},
		"configs/cut":                {},
		"configs/setting":            {imports: []string{"configs/cut", "rpc", "cmd/mcp-bridge"}},
		"cmd/mcp-bridge":             {imports: []string{"bridge", "verify/doctor", "cmd/other"}},
		"cmd/other":                  {},
	}
	g := graph{module: "example.com/m", pkgs: pkgs}
	want := []string{
		"rpc: package rpc imports configs/cut; rule: rpc imports only the standard library (and its own sub-packages)",
		// What rpc links, lifecycle links too.
		"lifecycle: package lifecycle imports rpc, which brings in configs/cut (rpc → configs/cut); rule: lifecycle imports only rpc (and its own sub-packages)",
		"lifecycle: package lifecycle imports configs/cut; rule: lifecycle imports only rpc (and its own sub-packages)",
		"lifecycle/clienterr: package lifecycle/clienterr imports rpc, which brings in configs/cut (rpc → configs/cut); rule: lifecycle imports only rpc (and its own sub-packages)",
		"bridge/guard: package bridge/guard imports bridge/telemetry/health; rule: the gate (bridge/guard/...) never imports the core (bridge) nor telemetry",
		"bridge/telemetry/status: package bridge/telemetry/status imports bridge; rule: telemetry never imports the core (bridge)",
		"bridge/connect: package bridge/connect imports bridge/streamable, which brings in bridge (bridge/streamable → bridge); rule: connect is a client of a bridge, never the core (bridge)",
		"bridge/internal/bridgetest: package bridge/internal/bridgetest imports verify; rule: nothing under bridge/ imports verify/..., which sits above it (verify's test helpers aside)",
		"verify/doctor: package verify/doctor imports bridge/streamable, which brings in bridge (bridge/streamable → bridge); rule: verify/... never imports the core (bridge), directly or through another package",
		"tcpbase: package tcpbase imports lifecycle/clienterr; rule: tcpbase imports only rpc and configs (the base has no lifecycle)",
		"configs/setting: package configs/setting imports cmd/mcp-bridge; rule: configs imports only rpc (and its own sub-packages)",
		"configs/setting: package configs/setting imports cmd/mcp-bridge; rule: nothing outside cmd imports cmd",
		"bridge: package bridge imports bridge/internal/bridgetest; rule: no shipped code imports a test helper (*test, test*)",
	}
	if diff := cmp.Diff(want, breaches(g, rules)); diff != "" {
		t.Errorf("breaches (-want +got):\n%s", diff)
	}
}
