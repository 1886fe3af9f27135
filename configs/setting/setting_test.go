package setting

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Int("port", 8080, "")
	fs.StringSlice("allow-origin", nil, "")
	fs.String("tls-cert", "", "")
	fs.String("tls-key", "", "")
	fs.Bool("tls-self-signed", false, "")
	fs.String("token-file", "", "")
	Together(fs, "tls-cert", "tls-key", "tls-self-signed")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func env(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }

// TestRead: the command line, else the variable, else the default; what
// each message calls the setting and where doctor says it came from.
func TestRead(t *testing.T) {
	for _, tt := range []struct {
		name      string
		args      []string
		vars      map[string]string
		want      string // --port's value
		msg, from string
		wantErr   string
		allowed   string // --allow-origin's value
	}{
		{"default", nil, nil, "8080", "--port", "default", "", "[]"},
		{"variable", nil, map[string]string{"CAD_MCP_PORT": "9000"}, "9000", "CAD_MCP_PORT", "CAD_MCP_PORT", "", "[]"},
		{"command line wins", []string{"--port", "9001"}, map[string]string{"CAD_MCP_PORT": "9000"}, "9001", "--port", "--port", "", "[]"},
		{"unfilled placeholder is unset", nil, map[string]string{"CAD_MCP_PORT": "${user_config.port}"}, "8080", "--port", "default", "", "[]"},
		{"empty variable is unset", nil, map[string]string{"CAD_MCP_PORT": ""}, "8080", "--port", "default", "", "[]"},
		{"bad variable names itself", nil, map[string]string{"CAD_MCP_PORT": "x"}, "", "", "", `environment CAD_MCP_PORT="x"`, ""},
		{"list from its variable", nil, map[string]string{"CAD_MCP_ALLOW_ORIGIN": "a,b"}, "8080", "--port", "default", "", "[a,b]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := flags(t, tt.args...)
			err := Read(fs, env(tt.vars), "port", "allow-origin")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Read: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			o := OriginOf(fs)
			got := []string{fs.Lookup("port").Value.String(), o.Name("port"), o.From("port"), fs.Lookup("allow-origin").Value.String()}
			if diff := cmp.Diff([]string{tt.want, tt.msg, tt.from, tt.allowed}, got); diff != "" {
				t.Errorf("value, name, from, list (-want +got):\n%s", diff)
			}
			if fs.Changed("port") != (tt.from == "--port") {
				t.Error("a variable's value counts as on the command line")
			}
		})
	}
}

// TestReadOnce: a flag two domains read is read once; a list does not
// grow.
func TestReadOnce(t *testing.T) {
	fs := flags(t)
	get := env(map[string]string{"CAD_MCP_ALLOW_ORIGIN": "a"})
	for range 2 {
		if err := Read(fs, get, "allow-origin"); err != nil {
			t.Fatal(err)
		}
	}
	if got := fs.Lookup("allow-origin").Value.String(); got != "[a]" {
		t.Errorf("read twice: %s", got)
	}
}

// TestTogether: one flag of a group on the command line keeps every
// variable of the group unread; none there, each is read.
func TestTogether(t *testing.T) {
	vars := env(map[string]string{"CAD_MCP_TLS_CERT": "c.pem", "CAD_MCP_TLS_KEY": "k.pem"})
	fs := flags(t, "--tls-self-signed")
	if err := Read(fs, vars, "tls-cert", "tls-key", "tls-self-signed"); err != nil {
		t.Fatal(err)
	}
	if c, k := fs.Lookup("tls-cert").Value.String(), fs.Lookup("tls-key").Value.String(); c != "" || k != "" {
		t.Errorf("with --tls-self-signed on the command line: cert %q, key %q read from the environment", c, k)
	}
	fs = flags(t)
	if err := Read(fs, vars, "tls-cert", "tls-key", "tls-self-signed"); err != nil {
		t.Fatal(err)
	}
	if c := fs.Lookup("tls-cert").Value.String(); c != "c.pem" {
		t.Errorf("with none on the command line: cert %q", c)
	}
}

// setFromEnv is a list whose variable is a JSON-like form of its own.
type setFromEnv []string

func (s *setFromEnv) String() string            { return strings.Join(*s, "|") }
func (s *setFromEnv) Set(v string) error        { *s = append(*s, v); return nil }
func (s *setFromEnv) Type() string              { return "list" }
func (s *setFromEnv) SetFromEnv(v string) error { *s = strings.Split(v, ";"); return nil }

func TestReadSetFromEnv(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var v setFromEnv
	fs.Var(&v, "launch-arg", "")
	if err := Read(fs, env(map[string]string{"CAD_MCP_LAUNCH_ARG": "a b;c"}), "launch-arg"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(setFromEnv{"a b", "c"}, v); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestToken: --token-file on the command line wins (even empty: no
// token), then CAD_MCP_TOKEN, then CAD_MCP_TOKEN_FILE; a byte order mark
// and a second line are not the token; one that no header carries is
// refused without being said.
func TestToken(t *testing.T) {
	dir := testdir.New(t)
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := file("a", "\xef\xbb\xbfsecret-a\nsecond line\n"), file("b", "secret-b")
	for _, tt := range []struct {
		name             string
		args             []string
		vars             map[string]string
		token, from, err string
	}{
		{"none", nil, nil, "", "", ""},
		{"file on the command line", []string{"--token-file", a}, map[string]string{TokenVar: "v", "CAD_MCP_TOKEN_FILE": b}, "secret-a", "--token-file " + a, ""},
		{"empty on the command line", []string{"--token-file="}, map[string]string{TokenVar: "v"}, "", "", ""},
		{"the variable", nil, map[string]string{TokenVar: " v ", "CAD_MCP_TOKEN_FILE": b}, "v", TokenVar, ""},
		{"the file's variable", nil, map[string]string{"CAD_MCP_TOKEN_FILE": b}, "secret-b", "CAD_MCP_TOKEN_FILE " + b, ""},
		{"control characters", nil, map[string]string{TokenVar: "a\x00b"}, "", "", "CAD_MCP_TOKEN holds control characters"},
		{"empty file", []string{"--token-file", file("e", "\n")}, nil, "", "", "is empty"},
		{"missing file", []string{"--token-file", filepath.Join(dir, "none")}, nil, "", "", "--token-file: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := flags(t, tt.args...)
			if err := Read(fs, env(tt.vars), "token-file"); err != nil {
				t.Fatal(err)
			}
			src := TokenFrom(fs, env(tt.vars))
			tok, from, err := src.Read()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "secret") {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || tok != tt.token || from != tt.from || src.From() != tt.from {
				t.Errorf("got %q from %q (From %q), %v; want %q from %q", tok, from, src.From(), err, tt.token, tt.from)
			}
		})
	}
}

// TestReadSmall: at most max bytes, one more is refused as not the kind
// of file the setting takes.
func TestReadSmall(t *testing.T) {
	p := filepath.Join(testdir.New(t), "f")
	if err := os.WriteFile(p, make([]byte, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSmall("--ca", p, 2048, "a file of CA certificates"); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := ReadSmall("--ca", p, 2047, "a file of CA certificates"); err == nil || !strings.Contains(err.Error(), "--ca "+p+" is over 1 KiB: not a file of CA certificates") {
		t.Errorf("a byte over: %v", err)
	}
}
