package streamable

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestConfigFrom: what --listen and its companions take, at the edge of
// each rule; a certificate and its key as one choice; a proxy as an
// address or a CIDR.
func TestConfigFrom(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
		err  string
	}{
		{[]string{"--listen", "127.0.0.1:0", "--max-streams", "1", "--max-sessions", "1"}, nil, ""},
		{[]string{"--listen", "127.0.0.1"}, nil, `--listen "127.0.0.1": want HOST:PORT`},
		{nil, map[string]string{"CAD_MCP_LISTEN": "cad-pc"}, `CAD_MCP_LISTEN "cad-pc": want HOST:PORT`},
		{[]string{"--listen", ":0", "--max-streams", "0"}, nil, "--max-streams and --max-sessions at least 1"},
		{[]string{"--listen", ":0", "--session-idle", "0s"}, nil, "--session-idle must be positive"},
		{[]string{"--tls-self-signed"}, nil, "they need --listen"},
		{[]string{"--listen", ":0", "--tls-cert", "c.pem"}, nil, "--tls-cert and --tls-key go together"},
		{[]string{"--listen", ":0", "--tls-self-signed"}, map[string]string{"CAD_MCP_TLS_CERT": "c.pem"}, ""}, // one choice: the command line's
		{[]string{"--listen", ":0", "--trust-proxy", "10.0.0.1,10.0.0.0/8,::1"}, nil, ""},
		{[]string{"--listen", ":0", "--trust-proxy", "10.0.0.0/33"}, nil, `--trust-proxy "10.0.0.0/33"`},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		AddFlags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		_, err := ConfigFrom(fs, func(k string) string { return tt.env[k] }, testdir.New(t))
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%v %v: %v, want %q", tt.args, tt.env, err, tt.err)
		}
	}
}
