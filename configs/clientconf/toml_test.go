package clientconf

import (
	"bytes"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// oracle reads TOML with a real parser.
func oracle(src []byte) (map[string]any, error) {
	var m map[string]any
	_, err := toml.Decode(string(bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))), &m)
	return m, err
}

// wantAfterInstall is before with the server's entry as install owns it:
// command, args and the CAD_MCP_* variables of env are ours (for a URL
// entry, url and bearer_token_env_var), the other form's keys are gone,
// every other key of the file and of the entry is as it was.
func wantAfterInstall(before map[string]any, name string, s Server) map[string]any {
	want := stringKeyed(before).(map[string]any)
	if want == nil {
		want = map[string]any{}
	}
	servers, _ := want["mcp_servers"].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
		want["mcp_servers"] = servers
	}
	entry, _ := servers[name].(map[string]any)
	if entry == nil {
		entry = map[string]any{}
		servers[name] = entry
	}
	if s.URL != "" {
		for _, k := range []string{"command", "args", "env", "env_vars", "cwd"} {
			delete(entry, k)
		}
		entry["url"] = s.URL
		delete(entry, "bearer_token_env_var")
		if s.TokenEnv != "" {
			entry["bearer_token_env_var"] = s.TokenEnv
		}
		return want
	}
	for _, k := range []string{"url", "bearer_token_env_var", "http_headers", "env_http_headers", "http_headers_helper", "oauth_resource"} {
		delete(entry, k)
	}
	entry["command"] = s.Command
	args := []any{}
	for _, a := range s.Args {
		args = append(args, a)
	}
	entry["args"] = args
	env, had := entry["env"].(map[string]any)
	if had || len(s.Env) > 0 {
		if env == nil {
			env = map[string]any{}
		}
		for k := range env {
			if ours(k) {
				delete(env, k)
			}
		}
		for k, v := range s.Env {
			env[k] = v
		}
		entry["env"] = env
	}
	return want
}

// checkTOMLInstall is the oracle invariant: when src is TOML, install
// either refuses it or writes TOML in which every other key keeps its
// value and the entry has exactly what install wrote; uninstall then gives
// back what was there. It returns install's error.
func checkTOMLInstall(t *testing.T, src []byte, name string, s Server) ([]byte, error) {
	t.Helper()
	out, err := tomlSet(src, name, s)
	before, perr := oracle(src)
	if err != nil || perr != nil {
		return out, err
	}
	after, aerr := oracle(out)
	if aerr != nil {
		t.Fatalf("install wrote invalid TOML: %v\n--- from\n%s\n--- to\n%s", aerr, src, out)
	}
	if d := cmp.Diff(wantAfterInstall(before, name, s), after, cmpopts.EquateNaNs(), cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("install changed more or less than its entry (-want +got):\n%s\n--- from\n%s\n--- to\n%s", d, src, out)
	}
	servers, err := tomlServers(out)
	if err != nil {
		t.Fatalf("install wrote a file it cannot read: %v\n%s", err, out)
	}
	if got := servers[name]; got.Command != s.Command || !cmp.Equal(got.Args, s.Args, cmpopts.EquateEmpty()) || got.URL != s.URL || got.TokenEnv != s.TokenEnv {
		t.Fatalf("reading back the entry: %+v\n%s", got, out)
	}
	back, ok, err := tomlRemove(out, name)
	if err != nil || !ok {
		t.Fatalf("uninstall: %v %v\n%s", ok, err, out)
	}
	after, aerr = oracle(back)
	if aerr != nil {
		t.Fatalf("uninstall wrote invalid TOML: %v\n%s", aerr, back)
	}
	if m, _ := before["mcp_servers"].(map[string]any); m[name] == nil {
		if d := cmp.Diff(before, after, cmpopts.EquateNaNs(), cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("install then uninstall changed the file (-want +got):\n%s\n--- from\n%s\n--- to\n%s", d, src, back)
		}
	}
	return out, nil
}

var codexServer = Server{Command: `C:\Users\Me\AppData\Local\Programs\mcp-bridge\mcp-bridge.exe`, Args: []string{`--log-file`, `C:\logs\"b".log`}, Env: map[string]string{"CAD_MCP_HOST": "127.0.0.1", "CAD_MCP_PORT": "9000"}}

// TestCodexReinstallKeepsUserKeys: a second install updates command, args
// and the CAD_MCP_* variables, and keeps what the user set in the entry.
func TestCodexReinstallKeepsUserKeys(t *testing.T) {
	for _, src := range []string{
		`[mcp_servers.cad-autocad]
command = "/old/mcp-bridge"
args = []
enabled = false
startup_timeout_sec = 30
enabled_tools = ["get_drawing_info"] # mine

[mcp_servers.cad-autocad.env]
CAD_MCP_PORT = "8080"
CAD_MCP_OLD = "x"
HTTPS_PROXY = "http://proxy:3128"
`,
		"[mcp_servers.cad-autocad]\nenabled = false\ncommand = \"/old\"\nenv = { HTTPS_PROXY = \"http://proxy:3128\", CAD_MCP_PORT = \"8080\" }\nstartup_timeout_sec = 30\n",
		"[mcp_servers.cad-autocad]\nenabled = false\n",
	} {
		out, err := checkTOMLInstall(t, []byte(src), "cad-autocad", codexServer)
		if err != nil {
			t.Fatalf("refused: %v\n%s", err, src)
		}
		for _, keep := range []string{"enabled = false", "startup_timeout_sec = 30", `enabled_tools = ["get_drawing_info"] # mine`, `HTTPS_PROXY = "http://proxy:3128"`} {
			if strings.Contains(src, keep) && !strings.Contains(string(out), keep) {
				t.Errorf("lost %q:\n%s", keep, out)
			}
		}
		if strings.Contains(string(out), "CAD_MCP_OLD") {
			t.Errorf("a CAD_MCP_ variable install no longer sets is still there:\n%s", out)
		}
	}
}

// TestCodexShapes: the shapes that made install append a second table
// are edited in place (the oracle checks it), or refused, untouched.
func TestCodexShapes(t *testing.T) {
	existing := "[mcp_servers.cad-autocad]\ncommand = \"/old\"\nargs = []\n"
	for _, src := range []string{
		"# a \"\"\" in a comment\n" + existing,
		"title = 'a \"\"\" in a literal'\n" + existing,
		"path = 'C:\\new [x]'\n" + existing,
		"list = [\n  [\"a\"],\n  [\"b\"]\n]\n" + existing,
		existing + "list = [\n[\"mcp_servers\"]\n]\n",
		"s = \"\"\"\n[mcp_servers.cad-autocad]\n\"\"\"\n" + existing,
		"s = '''\n[x]'''\n" + existing,
	} {
		// A second [mcp_servers.cad-autocad] would be invalid TOML: the
		// oracle in checkTOMLInstall sees it.
		if _, err := checkTOMLInstall(t, []byte(src), "cad-autocad", codexServer); err != nil {
			t.Errorf("refused: %v\n%s", err, src)
		}
	}
	for _, src := range []string{
		"mcp_servers = { cad-autocad = { command = \"x\" } }\n",
		"mcp_servers = { other = { command = \"x\" } }\n",
		"[mcp_servers]\nother = { command = \"x\" }\n",
		"mcp_servers.other.command = \"x\"\n",
		"[[mcp_servers]]\nname = \"x\"\n",
		"[mcp_servers.cad-autocad]\nenv.CAD_MCP_PORT = \"1\"\n",
	} {
		if _, err := tomlSet([]byte(src), "cad-autocad", codexServer); err == nil {
			t.Errorf("not refused:\n%s", src)
		}
	}
}

// FuzzTOMLInstall: the oracle invariant over any file (checkTOMLInstall),
// with any command and variable value, for a stdio entry or a URL entry
// (with the token's variable or without) as shape picks.
func FuzzTOMLInstall(f *testing.F) {
	for _, s := range []string{
		"", "model = \"o3\"\n", "[mcp_servers.cad]\ncommand = \"x\"\n[mcp_servers.cad.env]\nA = \"1\"\nCAD_MCP_X = \"2\"\n",
		"[a]\nlist = [\n 1,\n]\ns = \"\"\"\n[x]\n\"\"\"\n", "mcp_servers.cad.command = \"x\"\n", "[[mcp_servers.cad]]\n",
		"[mcp_servers.cad]\nenabled = false\nenv = { KEEP = \"1\", CAD_MCP_PORT = \"2\" }\n# end\n",
		"\xef\xbb\xbf[mcp_servers.cad]\r\ncommand = 'c:\\x'\r\n", "d = 1979-05-27 07:32:00Z\n[mcp_servers.cad]\nargs = [\n  \"a\", # c\n]\n",
		"[ mcp_servers . \"cad\" ]\ncommand = \"x\" # c\n[mcp_servers.cad.tools.t]\nenabled = true", "[mcp_servers.cad]",
		"[mcp_servers.cad.env]\nA = \"1\"\n", "[mcp_servers.other]\ncommand = \"\"\"\nmulti\\\n  line\"\"\"\n[mcp_servers.cad]\nenv = {}\n",
		"[mcp_servers.cad]\nenv = { 'CAD_MCP_PORT' = '1', \"x.y\" = \"2\" }\nargs = ['a']",
		"[mcp_servers.cad]\nurl = \"http://old/mcp\"\nbearer_token_env_var = \"OLD\"\nhttp_headers = { X = \"1\" }\nenabled = false\n[mcp_servers.cad.env_http_headers]\nY = \"Z\"\n",
		"[mcp_servers.cad]\ncommand = \"x\"\ncwd = \"/tmp\"\nenv_vars = [\"A\"]\n[mcp_servers.cad.env]\nA = \"1\"\n[mcp_servers.other]\nurl = \"u\"\n",
		"[mcp_servers.cad]\nurl = \"u\"",
	} {
		for shape := range uint8(3) {
			f.Add(s, `C:\Users\x\mcp-bridge.exe`, "8080", shape)
		}
	}
	f.Add("", "/opt/a\x7fb\x01c\td\n", "\u2028\"'", uint8(1))
	f.Fuzz(func(t *testing.T, src, command, value string, shape uint8) {
		// Invalid UTF-8 cannot be written as TOML; the bridge's own values
		// are paths and flags, UTF-8 on every system it runs on.
		command, value = strings.ToValidUTF8(command, "\uFFFD"), strings.ToValidUTF8(value, "\uFFFD")
		s := Server{Command: command, Args: []string{"--port", value}, Env: map[string]string{"CAD_MCP_PORT": value}}
		switch shape % 3 {
		case 1:
			s = Lookup("codex").URLServer("https://"+command+"/mcp", true)
		case 2:
			s = Lookup("codex").URLServer("https://"+command+"/mcp", false)
		}
		checkTOMLInstall(t, []byte(src), "cad", s)
	})
}

// TestCodexURLForm: a Codex entry turned into the URL form loses every
// stdio key, the user's env, env_vars and cwd included (Codex refuses the
// whole file when a table mixes them), and keeps the keys both forms
// take; turned back, it loses every URL key. The rest of the file stays
// byte for byte.
func TestCodexURLForm(t *testing.T) {
	codex := Lookup("codex")
	const head = "# my settings\nmodel = \"o3\"\n\n"
	const tail = "\n[mcp_servers.other]\nurl = \"https://other/mcp\" # keep me\nbearer_token_env_var = \"OTHER\"\n"
	stdio := head + `[mcp_servers.cad-autocad]
command = "/old/mcp-bridge"
args = ["--port", "9000"]
enabled = false # mine
cwd = "/tmp"
env_vars = ["HOME"]
startup_timeout_sec = 30

[mcp_servers.cad-autocad.env]
HTTPS_PROXY = "http://proxy:3128"
` + tail
	out, err := checkTOMLInstall(t, []byte(stdio), "cad-autocad", codex.URLServer(remoteURL, true))
	if err != nil {
		t.Fatal(err)
	}
	want := head + `[mcp_servers.cad-autocad]
enabled = false # mine
startup_timeout_sec = 30
url = "https://cad.example:8443/mcp"
bearer_token_env_var = "CAD_MCP_TOKEN"
` + tail
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("stdio entry turned URL (-want +got):\n%s", diff)
	}
	// Without a token: the variable's name goes.
	out2, err := checkTOMLInstall(t, out, "cad-autocad", codex.URLServer(remoteURL, false))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(want, "bearer_token_env_var = \"CAD_MCP_TOKEN\"\n", "", 1); string(out2) != want {
		t.Errorf("without a token (-want +got):\n%s", cmp.Diff(want, string(out2)))
	}
	// And back to stdio, from an entry with the URL keys Codex has.
	url := head + `[mcp_servers.cad-autocad]
url = "http://old/mcp"
bearer_token_env_var = "CAD_MCP_TOKEN"
http_headers = { "X-Trace" = "1" }
enabled = false # mine

[mcp_servers.cad-autocad.env_http_headers]
X-Key = "KEY_VAR"
` + tail
	out, err = checkTOMLInstall(t, []byte(url), "cad-autocad", codexServer)
	if err != nil {
		t.Fatal(err)
	}
	want = head + `[mcp_servers.cad-autocad]
enabled = false # mine
command = "C:\\Users\\Me\\AppData\\Local\\Programs\\mcp-bridge\\mcp-bridge.exe"
args = ["--log-file", "C:\\logs\\\"b\".log"]
env = { CAD_MCP_HOST = "127.0.0.1", CAD_MCP_PORT = "9000" }
` + tail
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("URL entry turned stdio (-want +got):\n%s", diff)
	}
	// doctor's reading: the URL entry is ours by the variable it names.
	servers, _ := tomlServers([]byte(stdio))
	if IsBridge(servers["other"]) {
		t.Errorf("a URL entry of the user's own, naming another variable, counted as ours: %+v", servers["other"])
	}
	out, _ = tomlSet([]byte(stdio), "cad-autocad", codex.URLServer(remoteURL, true))
	servers, _ = tomlServers(out)
	if got := servers["cad-autocad"]; !IsBridge(got) || got.URL != remoteURL || got.TokenEnv != TokenVar {
		t.Errorf("doctor reads the URL entry as %+v, ours %v", got, IsBridge(got))
	}
}
