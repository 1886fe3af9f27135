package bridge

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/setting"
	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// The core's defaults: a Config's zero values take them (setDefaults),
// and its flags (AddFlags) show them. Probing and heartbeats have theirs
// in the flags alone: in a Config, as on the command line, 0 turns them
// off.
const (
	DefaultListTimeout      = 30 * time.Second
	DefaultCallTimeout      = 120 * time.Second
	DefaultQueue            = 64
	DefaultProbeInterval    = time.Second
	DefaultProgressInterval = 5 * time.Second
)

// CacheDirDefault is --cache-dir's default: DefaultCacheDir (a variable:
// the help golden files' test makes it the same on every machine, as its
// length moves where help wraps).
var CacheDirDefault = DefaultCacheDir

// DefaultCacheDir is <user cache dir>/mcp-bridge (%LocalAppData% on
// Windows, ~/Library/Caches on macOS, $XDG_CACHE_HOME or ~/.cache on
// Linux); "" when the system has none.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "mcp-bridge")
}

// coreFlags are the flags of the core's own settings, in --help's order.
var coreFlags = []string{"list-timeout", "call-timeout", "max-message", "queue", "no-schema-repair", "cache-dir", "no-cache", "probe-interval", "progress-interval"}

// AddFlags registers the core's settings on fs: its timeouts, limits,
// tool-list cache, probing and heartbeats.
func AddFlags(fs *pflag.FlagSet) {
	fs.Duration("list-timeout", DefaultListTimeout, "time for the base to answer tools/list (env CAD_MCP_LIST_TIMEOUT)")
	fs.Duration("call-timeout", DefaultCallTimeout, "time for the base to answer tools/call (env CAD_MCP_CALL_TIMEOUT)")
	fs.Int("max-message", rpc.DefaultMaxMessage, "largest message in bytes, either way (env CAD_MCP_MAX_MESSAGE)")
	fs.Int("queue", DefaultQueue, "requests that may wait for the base before new ones are refused (env CAD_MCP_QUEUE)")
	fs.Bool("no-schema-repair", false, `do not add "type": "object" to tool schemas that lack it (env CAD_MCP_NO_SCHEMA_REPAIR)`)
	dir := folder(CacheDirDefault())
	fs.Var(&dir, "cache-dir", "where the last good tool list of each base is kept, so clients get tools while CAD is down (env CAD_MCP_CACHE_DIR)")
	fs.Bool("no-cache", false, "keep no tool list on disk (env CAD_MCP_NO_CACHE)")
	fs.Duration("probe-interval", DefaultProbeInterval, "first wait before checking whether a base that went down is back, doubling to 1m; 0 turns probing off (env CAD_MCP_PROBE_INTERVAL)")
	fs.Duration("progress-interval", DefaultProgressInterval, "notifications/progress heartbeats for calls with a progressToken; 0 turns them off (env CAD_MCP_PROGRESS_INTERVAL)")
}

// ConfigFrom reads the flags AddFlags registered on fs, after fs.Parse
// (each from the command line, else its CAD_MCP_<NAME> variable through
// getenv, else its default), checks them, and returns a Config with the
// core's own settings; the rest (the base, the rules, telemetry, the
// logger) is the caller's to fill in.
func ConfigFrom(fs *pflag.FlagSet, getenv func(string) string) (Config, error) {
	if err := setting.Read(fs, getenv, coreFlags...); err != nil {
		return Config{}, err
	}
	var c Config
	c.ListTimeout, _ = fs.GetDuration("list-timeout")
	c.CallTimeout, _ = fs.GetDuration("call-timeout")
	c.MaxMessage, _ = fs.GetInt("max-message")
	c.Queue, _ = fs.GetInt("queue")
	c.NoSchemaRepair, _ = fs.GetBool("no-schema-repair")
	if off, _ := fs.GetBool("no-cache"); !off {
		c.CacheDir = CacheFolder(fs)
	}
	c.ProbeInterval, _ = fs.GetDuration("probe-interval")
	c.ProgressInterval, _ = fs.GetDuration("progress-interval")
	switch {
	case c.Queue < 1:
		return c, fmt.Errorf("--queue %d: must be at least 1", c.Queue)
	case c.MaxMessage < 1024:
		return c, fmt.Errorf("--max-message %d: must be at least 1024", c.MaxMessage)
	case c.ProbeInterval < 0 || c.ProgressInterval < 0:
		return c, fmt.Errorf("--probe-interval and --progress-interval must not be negative (0 turns them off)")
	case c.ListTimeout <= 0:
		return c, fmt.Errorf("--list-timeout %s: must be positive", c.ListTimeout)
	case c.CallTimeout <= 0:
		return c, fmt.Errorf("--call-timeout %s: must be positive", c.CallTimeout)
	}
	return c, nil
}

// CacheFolder is --cache-dir, even with --no-cache: the self-signed TLS
// certificate and the launch lock are kept there, and are no cache.
func CacheFolder(fs *pflag.FlagSet) string {
	if fl := fs.Lookup("cache-dir"); fl != nil {
		return fl.Value.String()
	}
	return DefaultCacheDir()
}

// folder is a flag holding a folder's path. It is a string, but not
// pflag's "string": --help shows its default as typed, where %q doubled
// each backslash of a Windows path ("C:\\Users\\…").
type folder string

func (v *folder) String() string     { return string(*v) }
func (v *folder) Set(s string) error { *v = folder(s); return nil }
func (v *folder) Type() string       { return "folder" }
