package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestConfigFrom: the core's settings at the edge of each rule; 0 turns
// probing and heartbeats off, in the Config as on the command line;
// --no-cache keeps the cache folder for what is no cache.
func TestConfigFrom(t *testing.T) {
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"--queue", "1", "--max-message", "1024"}, ""},
		{[]string{"--queue", "0"}, "--queue 0: must be at least 1"},
		{[]string{"--max-message", "1023"}, "--max-message 1023: must be at least 1024"},
		{[]string{"--probe-interval", "-1ns"}, "must not be negative (0 turns them off)"},
		{[]string{"--progress-interval", "-1ns"}, "must not be negative (0 turns them off)"},
		{[]string{"--list-timeout", "0s"}, "--list-timeout 0s: must be positive"},
		{[]string{"--call-timeout", "0s"}, "--call-timeout 0s: must be positive"},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		AddFlags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		_, err := ConfigFrom(fs, func(string) string { return "" })
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%v: %v, want %q", tt.args, err, tt.err)
		}
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFlags(fs)
	_ = fs.Parse([]string{"--probe-interval", "0", "--no-cache", "--cache-dir", "/c"})
	c, err := ConfigFrom(fs, func(k string) string { return map[string]string{"CAD_MCP_PROGRESS_INTERVAL": "0s"}[k] })
	if err != nil || c.ProbeInterval != 0 || c.ProgressInterval != 0 || c.CacheDir != "" || CacheFolder(fs) != "/c" {
		t.Errorf("off: %+v, %v, folder %s", c, err, CacheFolder(fs))
	}
	c.setDefaults()
	if c.ProbeInterval != 0 || c.ProgressInterval != 0 || c.ListTimeout != DefaultListTimeout || c.Queue != DefaultQueue {
		t.Errorf("the defaults turned them on again, or left the others unset: %+v", c)
	}
	var zero Config
	zero.setDefaults()
	if zero.CallTimeout != 120*time.Second || zero.ProbeInterval != 0 {
		t.Errorf("a zero Config: %+v", zero)
	}
}
