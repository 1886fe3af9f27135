package tcpbase

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestConfigFrom: the port at each edge of 1-65535, named as the user set
// it; the connect timeout positive; the variable under the flag.
func TestConfigFrom(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
		addr string
		err  string
	}{
		{nil, nil, "127.0.0.1:8080", ""},
		{[]string{"--port", "1"}, nil, "127.0.0.1:1", ""},
		{[]string{"--port", "65535"}, nil, "127.0.0.1:65535", ""},
		{[]string{"--port", "0"}, nil, "", "--port 0: must be 1-65535"},
		{[]string{"--port", "65536"}, nil, "", "--port 65536: must be 1-65535"},
		{nil, map[string]string{"CAD_MCP_PORT": "0"}, "", "CAD_MCP_PORT 0: must be 1-65535"},
		{[]string{"--port", "9000"}, map[string]string{"CAD_MCP_PORT": "0", "CAD_MCP_HOST": "::1"}, "[::1]:9000", ""},
		{[]string{"--connect-timeout", "1ns"}, nil, "127.0.0.1:8080", ""},
		{[]string{"--connect-timeout", "0s"}, nil, "", "--connect-timeout 0s: must be positive"},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		AddFlags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		c, err := ConfigFrom(fs, func(k string) string { return tt.env[k] })
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%v %v: %v, want %q", tt.args, tt.env, err, tt.err)
		case tt.err == "" && (err != nil || c.Addr() != tt.addr):
			t.Errorf("%v %v: %s, %v; want %s", tt.args, tt.env, c.Addr(), err, tt.addr)
		}
	}
}

// TestAddrFlagsAlone: the commands that take --host and --port alone dial
// with the default connect timeout.
func TestAddrFlagsAlone(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddAddrFlags(fs)
	c, err := ConfigFrom(fs, func(string) string { return "" })
	if err != nil || c.Client(0).ConnectTimeout != 3*time.Second || fs.Lookup("connect-timeout") != nil {
		t.Errorf("%+v, %v", c, err)
	}
}
