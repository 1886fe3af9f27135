package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/configs/register"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch/launchtest"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// install and --print-config pass the launch settings into the client's
// entry: each argument a --launch-arg of its own, a bare program name as
// the path this shell finds (GUI clients have a PATH of their own).
func TestLaunchPassedToTheEntry(t *testing.T) {
	bin := tempDir(t)
	exe := filepath.Join(bin, "freecad")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	macro := filepath.Join(bin, "My Macros", "MCPBridgeBase.FCMacro")
	os.MkdirAll(filepath.Join(bin, "My Macros", "cadbase"), 0o755)
	os.WriteFile(macro, nil, 0o644)
	out, errs, code := runCLI(t, nil, "", "--print-config", "--launch", "freecad", "--launch-arg", macro, "--launch-arg", "--single-instance", "--launch-wait", "5m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []string
	for _, a := range server(t, out)["args"].([]any) {
		got = append(got, a.(string))
	}
	want := []string{"--launch", exe, "--launch-arg", macro, "--launch-arg", "--single-instance", "--launch-wait", "5m0s"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("args %q\nwant %q", got, want)
	}
	// The entry, read back as the bridge reads it, is the same command.
	f := newBridgeFlags(&syncBuffer{})
	if err := f.parse(got, func(string) string { return "" }); err != nil || f.launch.Command().String() != (launch.Command{Path: exe, Args: []string{macro, "--single-instance"}}).String() {
		t.Fatalf("read back: %v, %s", err, f.launch.Command())
	}

	// install writes the same into the client's file.
	_, env, _ := doctorHome(t)
	if _, errs, code := runCLI(t, env, "", "install", "--client", "cursor", "--launch", exe, "--launch-arg", macro); code != 0 {
		t.Fatalf("install: %s", errs)
	}
	data, err := os.ReadFile(filepath.Join(env["HOME"], ".cursor", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]struct{ Args []string }
	}
	if err := json.Unmarshal(data, &doc); err != nil || fmt.Sprint(doc.MCPServers["cad-autocad"].Args) != fmt.Sprint([]string{"--launch", exe, "--launch-arg", macro}) {
		t.Fatalf("install wrote %s (%v)", data, err)
	}
}

// bridgeProcess starts this test binary as mcp-bridge, a process of its
// own (as a client starts it), with args.
func bridgeProcess(t *testing.T, args ...string) *verify.Bridge {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := verify.Start(exe, args, verify.Options{Env: []string{"MCP_BRIDGE_TEST_AS_MAIN=1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// fakeCAD is launchtest's fake CAD program on a free address, with its
// files in a folder of the test's; every copy started is stopped at the
// end.
func fakeCAD(t *testing.T) (launchtest.Fake, string) {
	t.Helper()
	dir := tempDir(t)
	addr, err := launchtest.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	f := launchtest.Fake{Addr: addr, Record: filepath.Join(dir, "starts"), Stop: filepath.Join(dir, "stop")}
	t.Cleanup(func() {
		_ = launchtest.Touch(f.Stop)
		starts, _ := launchtest.Starts(f.Record)
		for _, s := range starts {
			deadline := time.Now().Add(30 * time.Second)
			for launchtest.Alive(s.Pid) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
		}
	})
	return f, dir
}

// launchArgs are the bridge flags that launch f, with the lock beside
// dir's cache.
func launchArgsFor(f launchtest.Fake, dir string) []string {
	c := f.Command()
	_, port, _ := net.SplitHostPort(f.Addr)
	args := []string{"--port", port, "--cache-dir", filepath.Join(dir, "cache"), "--log-level", "debug", "--launch", c.Path}
	for _, a := range c.Args {
		args = append(args, "--launch-arg="+a)
	}
	return args
}

func recvLine(t *testing.T, b *verify.Bridge) string {
	t.Helper()
	line, err := b.Recv(60 * time.Second)
	if err != nil {
		t.Fatalf("%v; the bridge's log:\n%s", err, b.Stderr())
	}
	return line
}

// Three bridge processes (three clients), ten calls at once: CAD starts
// once; every call is answered, each client's in order; when the bridges
// exit, CAD runs on, in a session and process group of its own.
func TestLaunchAcrossBridgeProcesses(t *testing.T) {
	f, dir := fakeCAD(t)
	f.Hold = filepath.Join(dir, "hold")
	var bridges []*verify.Bridge
	for range 3 {
		bridges = append(bridges, bridgeProcess(t, launchArgsFor(f, dir)...))
	}
	// Stop CAD before the bridges are closed: a CAD that held a bridge's
	// stdout would keep it from ending.
	t.Cleanup(func() { _ = launchtest.Touch(f.Stop) })
	ids := [][]int{{1, 2, 3, 4}, {5, 6, 7}, {8, 9, 10}}
	for i, b := range bridges {
		for _, id := range ids[i] {
			if err := b.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"draw_line","arguments":{"start":{"x":0,"y":0},"end":{"x":%d,"y":0}},"_meta":{"progressToken":%d}}}`, id, id, id)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Each bridge's first call reports either the start or the wait for
	// another bridge's start.
	started, waiting := 0, 0
	for i, b := range bridges {
		line := recvLine(t, b)
		switch msg, _ := verify.Get(line, "params.message").(string); {
		case msg == "starting "+launch.CADName(f.Command())+"…":
			started++
		case strings.HasPrefix(msg, "another mcp-bridge is starting"):
			waiting++
		default:
			t.Fatalf("bridge %d: %s", i, line)
		}
	}
	if started != 1 || waiting != 2 {
		t.Fatalf("%d bridges started CAD, %d waited", started, waiting)
	}
	if err := launchtest.Touch(f.Hold); err != nil {
		t.Fatal(err)
	}
	for i, b := range bridges {
		var got []int
		for len(got) < len(ids[i]) {
			line := recvLine(t, b)
			if verify.Get(line, "method") == "notifications/progress" {
				continue
			}
			if verify.Get(line, "result.isError") != false {
				t.Fatalf("bridge %d: %s", i, line)
			}
			got = append(got, int(verify.Get(line, "id").(float64)))
		}
		if fmt.Sprint(got) != fmt.Sprint(ids[i]) {
			t.Errorf("bridge %d answered %v, want %v", i, got, ids[i])
		}
	}
	for i, b := range bridges {
		if bad := b.Impure(); bad != "" {
			t.Errorf("bridge %d's stdout carried something else than protocol messages: %s", i, bad)
		}
	}
	starts, err := launchtest.Starts(f.Record)
	if err != nil || len(starts) != 1 {
		t.Fatalf("%d starts (%v), want 1", len(starts), err)
	}
	cad := starts[0]
	for i, b := range bridges {
		b.CloseStdin()
		if code, err := b.Wait(30 * time.Second); code != 0 || err != nil {
			t.Fatalf("bridge %d exited %d, %v", i, code, err)
		}
	}
	if !launchtest.Alive(cad.Pid) {
		t.Fatal("CAD ended with the bridges")
	}
	c := &tcpbase.Client{Addr: f.Addr}
	if _, err := c.Call(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); err != nil {
		t.Fatalf("CAD's base after the bridges exited: %v", err)
	}
	switch runtime.GOOS {
	case "windows":
		if cad.ConsoleWindow != 0 || cad.HasConsole {
			t.Errorf("CAD has a console (window %#x)", cad.ConsoleWindow)
		}
	default:
		if cad.Sid != cad.Pid || cad.Pgid != cad.Pid || cad.Pgid == launchtest.ProcessGroup(bridges[0].PID()) {
			t.Errorf("CAD: session %d, process group %d (pid %d; the bridge's group %d)", cad.Sid, cad.Pgid, cad.Pid, launchtest.ProcessGroup(os.Getpid()))
		}
		if !cad.StdinNull { // the bridge's stdin is its client's pipe
			t.Errorf("CAD's stdin is not %s", os.DevNull)
		}
	}
}

// doctor shows the launch command and whether its program exists, and
// starts it only with --launch-test.
func TestDoctorLaunch(t *testing.T) {
	f, dir := fakeCAD(t)
	_, env, _ := doctorHome(t)
	// doctor's lock goes beside the user's cache (os.UserCacheDir).
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("LocalAppData", filepath.Join(dir, "cache"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	_, port, _ := net.SplitHostPort(f.Addr)
	c := f.Command()
	args := []string{"doctor", "--port", port, "--launch", c.Path}
	for _, a := range c.Args {
		args = append(args, "--launch-arg="+a)
	}

	out, errs, code := runCLI(t, env, "", "doctor", "--port", port, "--launch", filepath.Join(dir, "no-cad"))
	if code != 1 || !strings.Contains(out, "FAIL  launch: the program "+filepath.Join(dir, "no-cad")+" is not found") {
		t.Errorf("a program that is not there: exit %d\n%s%s", code, out, errs)
	}

	out, errs, code = runCLI(t, env, "", args...)
	if code != 0 || !strings.Contains(out, "ok    launch: a call that finds the base down starts "+c.String()) ||
		!strings.Contains(out, "info  CAD base at "+f.Addr+" is not running: a bridge with --launch starts it") || !strings.Contains(out, "not tried (--launch-test") {
		t.Errorf("doctor --launch: exit %d\n%s%s", code, out, errs)
	}
	if s, _ := launchtest.Starts(f.Record); len(s) != 0 {
		t.Fatal("doctor without --launch-test started the program")
	}

	out, errs, code = runCLI(t, env, "", append(args, "--launch-test")...)
	if code != 0 || !strings.Contains(out, "ok    launch test: the base at "+f.Addr+" accepts connections") || !strings.Contains(out, "ok    CAD base at "+f.Addr+" answers tools/list") ||
		!strings.Contains(errs, "launch: starting ") {
		t.Errorf("doctor --launch-test: exit %d\n%s%s", code, out, errs)
	}
	if s, _ := launchtest.Starts(f.Record); len(s) != 1 {
		t.Fatalf("%d starts, want 1", len(s))
	}

	if _, errs, code := runCLI(t, env, "", "doctor", "--launch-test"); code != 2 || !strings.Contains(errs, "--launch-test needs --launch") {
		t.Errorf("--launch-test alone: exit %d %s", code, errs)
	}
}

// launch-command finds FreeCAD and AutoCAD where their installers put
// them, the newest release first, and says when it does not know.
func TestLaunchCommand(t *testing.T) {
	root := tempDir(t)
	mk := func(rel string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	linuxFC := mk("linux/bin/freecad")
	linuxMacro := mk("linux/home/.local/share/FreeCAD/Macro/MCPBridgeBase.FCMacro")
	mk("linux/home/.local/share/FreeCAD/Macro/cadbase/__init__.py")
	bareMacro := mk("linux/bare/.local/share/FreeCAD/Macro/MCPBridgeBase.FCMacro") // without its cadbase folder
	mk("win/pf/FreeCAD 0.21/bin/FreeCAD.exe")
	winFC := mk("win/pf/FreeCAD 1.0/bin/freecad.exe")
	mk("win/pf/FreeCAD 0.9/bin/FreeCAD.exe")
	mk("win/pf/Autodesk/AutoCAD 2024/acad.exe")
	acad := mk("win/pf/Autodesk/AutoCAD 2025/acad.exe")
	macFC := mk("mac/home/Applications/FreeCAD.app/Contents/MacOS/FreeCAD")
	macMacro := mk("mac/home/Library/Application Support/FreeCAD/v1-1/Macro/MCPBridgeBase.FCMacro")
	// Given by the user, and there: checked when the test's system is the
	// one asked about (on Windows, under Wine).
	winMacro := mk("win/macros/MCPBridgeBase.FCMacro")
	mk("win/macros/cadbase/__init__.py")
	script := mk("win/cad/start base.scr")
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want []string
	}{
		{"FreeCAD on Linux", map[string]string{"PATH": p("linux/bin"), "HOME": p("linux/home")}, []string{"--os", "linux", "--cad", "freecad"}, 0,
			[]string{"FreeCAD: " + linuxFC, "--launch " + register.QuoteFor("linux", linuxFC) + " --launch-arg " + register.QuoteFor("linux", linuxMacro)}},
		{"FreeCAD on Linux, no macro yet", map[string]string{"PATH": p("linux/bin"), "HOME": p("linux/nohome")}, []string{"--os", "linux", "--cad", "freecad"}, 1,
			[]string{"--launch-arg " + register.QuoteFor("linux", p("linux/nohome/.local/share/FreeCAD/Macro/MCPBridgeBase.FCMacro")), "the base macro is neither in FreeCAD's macro folder nor beside mcp-bridge: copy MCPBridgeBase.FCMacro and the cadbase folder from the freecad folder of the mcp-bridge archive"}},
		{"FreeCAD on Linux, the macro without cadbase", map[string]string{"PATH": p("linux/bin"), "HOME": p("linux/bare")}, []string{"--os", "linux", "--cad", "freecad"}, 1,
			[]string{"the cadbase folder is not beside " + bareMacro}},
		{"FreeCAD on Linux, a --macro that is not there", map[string]string{"PATH": p("linux/bin"), "HOME": p("linux/home")}, []string{"--os", "linux", "--cad", "freecad", "--macro", p("nowhere/MCPBridgeBase.FCMacro")}, 1,
			[]string{"the file " + p("nowhere/MCPBridgeBase.FCMacro") + " (a --launch-arg) is not there"}},
		{"FreeCAD on Windows, the newest", map[string]string{"ProgramFiles": p("win/pf"), "APPDATA": p("win/appdata")}, []string{"--os", "windows", "--cad", "freecad", "--macro", winMacro}, 0,
			[]string{"FreeCAD: " + winFC, "--launch " + register.QuoteFor("windows", winFC) + " --launch-arg " + register.QuoteFor("windows", winMacro)}},
		{"FreeCAD on macOS", map[string]string{"HOME": p("mac/home")}, []string{"--os", "darwin", "--cad", "freecad"}, 0,
			[]string{"FreeCAD: " + macFC, "--launch-arg " + register.QuoteFor("darwin", macMacro)}},
		{"AutoCAD, the newest, with /b", map[string]string{"ProgramFiles": p("win/pf")}, []string{"--os", "windows", "--cad", "autocad", "--script", script}, 0,
			[]string{"AutoCAD: " + acad, "--launch-arg /b --launch-arg " + register.QuoteFor("windows", script)}},
		{"AutoCAD without a script", map[string]string{"ProgramFiles": p("win/pf")}, []string{"--os", "windows", "--cad", "autocad"}, 1,
			[]string{"--script: give the startup script"}},
		{"no FreeCAD", map[string]string{"PATH": p("none"), "HOME": p("none")}, []string{"--os", "linux", "--cad", "freecad"}, 1,
			[]string{"mcp-bridge does not know where FreeCAD is installed on this machine (it looked at"}},
		{"AutoCAD on Linux", nil, []string{"--os", "linux", "--cad", "autocad"}, 1,
			[]string{"knows where AutoCAD is installed on Windows only"}},
		{"another CAD", nil, []string{"--cad", "solidworks"}, 2, []string{`--cad "solidworks": mcp-bridge knows freecad and autocad`}},
	}
	if runtime.GOOS == "linux" {
		// The release archive's layout: mcp-bridge with the FreeCAD base in
		// freecad/ beside it, nothing in FreeCAD's macro folder yet.
		exe := mk("archive/mcp-bridge")
		macro := mk("archive/freecad/MCPBridgeBase.FCMacro")
		mk("archive/freecad/cadbase/__init__.py")
		out, errs, code := runAs(t, &env{argv0: exe, args: []string{"launch-command", "--root", p("system"), "--cad", "freecad"}}, map[string]string{"PATH": p("linux/bin"), "HOME": p("linux/nohome")})
		if code != 0 || !strings.Contains(out, "--launch-arg "+register.QuoteFor("linux", macro)) || !strings.Contains(out, "it is the one beside mcp-bridge: keep that folder where it is") {
			t.Errorf("beside the binary: exit %d\n%s%s", code, out, errs)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.name, "Linux, the macro without") || strings.Contains(tt.name, "Linux, a --macro") {
				if runtime.GOOS != "linux" {
					t.Skip("what a command names is checked on the system it is for")
				}
			}
			// The system's own folders are the test's: none of them holds CAD.
			out, errs, code := runCLI(t, tt.env, "", append([]string{"launch-command", "--root", p("system")}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			for _, w := range tt.want {
				if !strings.Contains(out+errs, w) {
					t.Errorf("lacks %q:\n%s%s", w, out, errs)
				}
			}
		})
	}
}

// doctor checks what the launch command names, as launch-command does: a
// --launch-arg file that is not there, and the FreeCAD macro without its
// cadbase folder, are problems (FreeCAD would open with no base and every
// call wait the whole --launch-wait); the macro with it is fine. So for a
// registration's command.
func TestDoctorChecksTheLaunchArguments(t *testing.T) {
	home, env, _ := doctorHome(t)
	exe, _ := os.Executable()
	dir := tempDir(t)
	bare := filepath.Join(dir, "bare", "MCPBridgeBase.FCMacro")
	good := filepath.Join(dir, "good", "MCPBridgeBase.FCMacro")
	for _, f := range []string{bare, good, filepath.Join(dir, "good", "cadbase", "__init__.py")} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, nil, 0o644)
	}
	missing := filepath.Join(dir, "MCPBridgeBase.FCMacro")
	for _, tt := range []struct {
		arg  string
		code int
		want string
	}{
		{missing, 1, "FAIL  launch: the file " + missing + " (a --launch-arg) is not there"},
		{bare, 1, "FAIL  launch: the cadbase folder is not beside " + bare},
		{good, 0, "ok    launch: a call that finds the base down starts"},
	} {
		out, errs, code := runCLI(t, env, "", "doctor", "--port", "1", "--launch", exe, "--launch-arg", tt.arg)
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("--launch-arg %s: exit %d, want %d and %q\n%s%s", tt.arg, code, tt.code, tt.want, out, errs)
		}
	}
	// A registration whose entry names the macro without cadbase.
	cfg := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"cad-autocad": map[string]any{"command": exe, "args": []string{"--launch", exe, "--launch-arg", bare}, "env": map[string]string{"CAD_MCP_PORT": "1"}}}})
	os.WriteFile(cfg, entry, 0o600)
	out, errs, code := runCLI(t, env, "", "doctor")
	if code != 1 || !strings.Contains(out, "its --launch command: the cadbase folder is not beside "+bare) {
		t.Errorf("a registration with the bare macro: exit %d\n%s%s", code, out, errs)
	}
}

// install --launch refuses a command that names a program or a macro that
// is not there (the client's file is left as it was), and with --force
// writes it with a warning: a bridge registered with it could never start
// CAD.
func TestInstallRefusesALaunchThatIsNotThere(t *testing.T) {
	home, env, _ := doctorHome(t)
	cfg := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	os.WriteFile(cfg, []byte("{}\n"), 0o600)
	exe, _ := os.Executable()
	typo := filepath.Join(home, "freecda")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--launch", typo}, "the program " + typo + " is not found"},
		{[]string{"--launch", exe, "--launch-arg", filepath.Join(home, "MCPBridgeBase.FCMacro")}, "the file " + filepath.Join(home, "MCPBridgeBase.FCMacro") + " (a --launch-arg) is not there"},
	} {
		os.WriteFile(cfg, []byte("{}\n"), 0o600)
		args := append([]string{"install", "--client", "cursor"}, tt.args...)
		_, errs, code := runCLI(t, env, "", args...)
		if b, _ := os.ReadFile(cfg); code != 2 || !strings.Contains(errs, "install does not register a --launch command that cannot start: "+tt.want) || !strings.Contains(errs, "--force") || string(b) != "{}\n" {
			t.Errorf("%v: exit %d, file %s\n%s", tt.args, code, b, errs)
		}
		out, errs, code := runCLI(t, env, "", append(args, "--force")...)
		if code != 0 || !strings.Contains(errs, "warning: "+tt.want) || !strings.Contains(out, `added "cad-autocad"`) && !strings.Contains(out, `updated "cad-autocad"`) {
			t.Errorf("%v --force: exit %d\n%s%s", tt.args, code, out, errs)
		}
	}
	if _, errs, code := runCLI(t, env, "", "install", "--client", "cursor", "--launch", exe); code != 0 {
		t.Errorf("a program that is there: exit %d %s", code, errs)
	}
}
