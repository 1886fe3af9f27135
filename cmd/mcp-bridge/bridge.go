package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/configs/loopback"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

// bridgeFlags are the bridge's settings (flag, then CAD_MCP_<NAME>, then
// default) and its action flags (flag only, see actionFlags).
type bridgeFlags struct {
	fs             *pflag.FlagSet
	host           string
	port           int
	connectTimeout time.Duration
	listTimeout    time.Duration
	callTimeout    time.Duration
	maxMessage     int
	queue          int
	noSchemaRepair bool
	cacheDir       string
	noCache        bool
	probeInterval  time.Duration
	progress       time.Duration
	logLevel       string
	logFormat      string
	logFile        string
	version        bool
	printConfig    bool
	name           string
	client         string
	rules          ruleFlags   // policy, confirmation, journal (rules.go)
	launch         launchFlags // starting CAD when its base is down (launch.go)
	set            *settings   // where each setting came from (settings.go)
	tel            telemetry.Config

	// Streamable HTTP (see httpflags.go)
	listen       string
	allowOrigins []string
	tokenFile    string
	allowRemote  bool
	sessionIdle  time.Duration
	maxStreams   int
	maxSessions  int
	tls          tlsFlags // tlsflags.go
	trustProxy   []string
}

func newBridgeFlags(stderr io.Writer) *bridgeFlags {
	f := &bridgeFlags{fs: pflag.NewFlagSet("mcp-bridge", pflag.ContinueOnError)}
	fs := f.fs
	fs.SetOutput(stderr)
	fs.SortFlags = false
	// Each flag in the group of its help topic (mcp-bridge help <topic>
	// lists the group's flags): a domain's flags stay together.
	addGroup(fs, "base", func(fs *pflag.FlagSet) {
		fs.StringVar(&f.host, "host", "127.0.0.1", "CAD base host (env CAD_MCP_HOST)")
		fs.IntVar(&f.port, "port", 8080, "CAD base TCP port (env CAD_MCP_PORT)")
		fs.DurationVar(&f.connectTimeout, "connect-timeout", 3*time.Second, "time to connect to the base (env CAD_MCP_CONNECT_TIMEOUT)")
		fs.DurationVar(&f.listTimeout, "list-timeout", 30*time.Second, "time for the base to answer tools/list (env CAD_MCP_LIST_TIMEOUT)")
		fs.DurationVar(&f.callTimeout, "call-timeout", 120*time.Second, "time for the base to answer tools/call (env CAD_MCP_CALL_TIMEOUT)")
		fs.IntVar(&f.maxMessage, "max-message", rpc.DefaultMaxMessage, "largest message in bytes, either way (env CAD_MCP_MAX_MESSAGE)")
		fs.IntVar(&f.queue, "queue", 64, "requests that may wait for the base before new ones are refused (env CAD_MCP_QUEUE)")
		fs.BoolVar(&f.noSchemaRepair, "no-schema-repair", false, `do not add "type": "object" to tool schemas that lack it (env CAD_MCP_NO_SCHEMA_REPAIR)`)
		f.cacheDir = cacheDirDefault()
		fs.Var((*folderValue)(&f.cacheDir), "cache-dir", "where the last good tool list of each base is kept, so clients get tools while CAD is down (env CAD_MCP_CACHE_DIR)")
		fs.BoolVar(&f.noCache, "no-cache", false, "keep no tool list on disk (env CAD_MCP_NO_CACHE)")
		fs.DurationVar(&f.probeInterval, "probe-interval", time.Second, "first wait before checking whether a base that went down is back, doubling to 1m; 0 turns probing off (env CAD_MCP_PROBE_INTERVAL)")
		fs.DurationVar(&f.progress, "progress-interval", 5*time.Second, "notifications/progress heartbeats for calls with a progressToken; 0 turns them off (env CAD_MCP_PROGRESS_INTERVAL)")
	})
	addGroup(fs, "policy", f.rules.addPolicy)
	addGroup(fs, "policy", f.rules.addConfirm)
	addGroup(fs, "journal", f.rules.addJournal)
	addGroup(fs, "launch", f.launch.add)
	addGroup(fs, "diagnostics", func(fs *pflag.FlagSet) {
		fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error (env CAD_MCP_LOG_LEVEL)")
		fs.StringVar(&f.logFormat, "log-format", "console", "console or json (env CAD_MCP_LOG_FORMAT)")
		fs.StringVar(&f.logFile, "log-file", "", "append logs to this file instead of stderr (env CAD_MCP_LOG_FILE)")
	})
	addGroup(fs, "clients", func(fs *pflag.FlagSet) {
		fs.BoolVar(&f.printConfig, "print-config", false, "print the JSON that registers this bridge with an MCP client, and exit")
		fs.StringVar(&f.name, "name", "cad-autocad", "server name in --print-config output (letters, digits, - and _; at most 64)")
		fs.StringVar(&f.client, "client", "generic", "--print-config shape: generic, inspector, "+strings.Join(clientconf.IDs(), ", "))
	})
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	addGroup(fs, "http", f.addHTTPFlags)
	addGroup(fs, "telemetry", telemetry.AddFlags)
	return f
}

// actionFlags choose what the program does, or shape --print-config's
// output, rather than how the bridge runs: they come from the command line
// only. A client starts the bridge with CAD_MCP_* in its environment, and
// CAD_MCP_PRINT_CONFIG=true there must not turn the server into a printer.
var actionFlags = map[string]bool{"print-config": true, "version": true, "client": true, "name": true, "scope": true, "dry-run": true, "copy": true, "force": true}

// parse reads args, then the environment for every setting not given.
func (f *bridgeFlags) parse(args []string, getenv func(string) string) error {
	if err := f.fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return err
		}
		return withFlagSuggestion(f.fs, err)
	}
	set, err := readSettings(f.fs, getenv, nil)
	if err != nil {
		return err
	}
	f.set, f.rules.set = set, set
	if err := f.rules.check(); err != nil {
		return err
	}
	if err := f.launch.check(f.set); err != nil {
		return err
	}
	if f.port < 1 || f.port > 65535 {
		return fmt.Errorf("%s %d: must be 1-65535", f.set.name("port"), f.port)
	}
	if f.queue < 1 {
		return fmt.Errorf("--queue %d: must be at least 1", f.queue)
	}
	if f.maxMessage < 1024 {
		return fmt.Errorf("--max-message %d: must be at least 1024", f.maxMessage)
	}
	if f.probeInterval < 0 || f.progress < 0 {
		return fmt.Errorf("--probe-interval and --progress-interval must not be negative (0 turns them off)")
	}
	for name, d := range map[string]time.Duration{"connect-timeout": f.connectTimeout, "list-timeout": f.listTimeout, "call-timeout": f.callTimeout} {
		if d <= 0 {
			return fmt.Errorf("--%s %s: must be positive", name, d)
		}
	}
	if err := f.checkHTTP(); err != nil {
		return err
	}
	f.tel, err = checkTelemetry(f.fs, getenv, f.listen)
	return err
}

func (f *bridgeFlags) addr() string { return net.JoinHostPort(f.host, strconv.Itoa(f.port)) }

func runBridge(ctx context.Context, e *env, args []string) error {
	f := newBridgeFlags(e.stderr)
	f.fs.Usage = func() { fmt.Fprint(e.stdout, rootHelp(f.fs)) }
	if err := f.parse(args, e.getenv); err != nil {
		if err == pflag.ErrHelp {
			return nil
		}
		return usageError{err}
	}
	if f.fs.NArg() > 0 {
		return usageError{fmt.Errorf("unknown command %q%s (see mcp-bridge help)", f.fs.Arg(0), didYouMean(f.fs.Arg(0), commands))}
	}
	if f.version {
		printVersion(e.stdout)
		return nil
	}
	if f.printConfig {
		return printConfig(e, f)
	}
	if err := notStdout(f.logFile, e.stdout); err != nil {
		return usageError{err}
	}
	log, closeLog, err := newLogger(f.logLevel, f.logFormat, f.logFile, e.stderr)
	if err != nil {
		return usageError{err}
	}
	defer closeLog()

	// The bridge holds at most about two copies of one message (an answer
	// being read, and its joined form), so a soft limit a little above that
	// keeps the garbage collector from letting a 15 MiB answer double the
	// heap. GOMEMLIMIT, when set, wins.
	if e.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(2*f.maxMessage) + 16<<20)
	}
	// The bridge's work is sequential (one reader, one worker, microseconds
	// of CPU per message); what costs is threads waking each other across
	// CPUs. One P cut the bridged/direct latency ratio from about 1.8 to 1.5
	// and raised pipelined throughput from 0.75 to 0.9 of direct on the
	// 2-core development machine (README, Performance). GOMAXPROCS, when
	// set, wins.
	if e.getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	addr := f.addr()
	if !loopback.Host(f.host) {
		log.Warn().Str("base", addr).Msg("the CAD base is not on this machine: its protocol has no authentication or encryption")
	}
	cfg := bridge.Config{
		Base:             &tcpbase.Client{Addr: addr, ConnectTimeout: f.connectTimeout, MaxAnswer: f.maxMessage},
		BaseAddr:         addr,
		ListTimeout:      f.listTimeout,
		CallTimeout:      f.callTimeout,
		Queue:            f.queue,
		MaxMessage:       f.maxMessage,
		NoSchemaRepair:   f.noSchemaRepair,
		CacheDir:         cacheDir(f),
		ProbeInterval:    offIfZero(f.probeInterval),
		ProgressInterval: offIfZero(f.progress),
		Server:           lifecycle.NewServer("mcp-bridge", version, instructions, true),
		Name:             f.name,
		Log:              log,
	}
	cfg.Health = health.New()
	metricsToken := ""
	if f.tel.MetricsListen != "" {
		if err := f.makeTokenFile(log); err != nil {
			return usageError{err}
		}
		if metricsToken, _, err = f.token(); err != nil {
			return usageError{err}
		}
	}
	tel, stopTel, err := startTelemetry(f.tel, cfg.Health, addr, metricsToken, f.allowRemote, log)
	if err != nil {
		if _, ok := err.(usageError); ok {
			return err
		}
		return usageError{err}
	}
	defer stopTel()
	cfg.Telemetry = tel
	f.launch.apply(&cfg, f, log)
	closeRules, err := f.rules.apply(&cfg, log, e.getenv)
	if err != nil {
		return usageError{err}
	}
	defer closeRules()
	// Once shutdown starts, a second signal kills the process at once.
	go func() {
		<-ctx.Done()
		if e.stopSignals != nil {
			e.stopSignals()
		}
	}()
	if f.listen != "" {
		err = serveHTTP(ctx, e, f, cfg)
		log.Info().Msg("mcp-bridge stopped")
		return err
	}
	if e.console {
		// A person started the bridge in a terminal: it would wait there
		// in silence for messages nobody types.
		fmt.Fprint(e.stderr, stdinNote(runtime.GOOS, e.argv0))
	}
	log.Info().Str("base", addr).Str("version", version).Msg("mcp-bridge serving on stdio")
	widenPipe(e.stdout)
	err = bridge.Run(ctx, cfg, interruptible(e.stdin), afterFirstWrite(e.stdout, trimDelay, func() { unmapUntouched(log) }))
	log.Info().Msg("mcp-bridge stopped")
	return err
}

const instructions = "Tools of the CAD program that is open on this machine. Calls act on the open drawing and may change it; they run one at a time, in order."

// cacheDirDefault is --cache-dir's default: defaultCacheDir, which the
// help golden files' test makes the same on every machine (its length
// moves where help wraps).
var cacheDirDefault = defaultCacheDir

// defaultCacheDir is <user cache dir>/mcp-bridge (%LocalAppData% on
// Windows, ~/Library/Caches on macOS, $XDG_CACHE_HOME or ~/.cache on Linux).
func defaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "mcp-bridge")
}

func cacheDir(f *bridgeFlags) string {
	if f.noCache {
		return ""
	}
	return f.cacheDir
}

// offIfZero maps the flag convention (0 = off) to the config's (< 0 = off).
func offIfZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// notStdout refuses a log file that is the bridge's stdout (such as
// /dev/stdout, or the file stdout is redirected to): logs there would mix
// into the protocol stream.
func notStdout(file string, stdout io.Writer) error {
	out, ok := stdout.(*os.File)
	if file == "" || !ok {
		return nil
	}
	fst, err := os.Stat(file)
	if err != nil {
		return nil // a file that does not exist yet is not stdout
	}
	ost, err := out.Stat()
	if err == nil && os.SameFile(fst, ost) {
		return fmt.Errorf("--log-file %s is the bridge's stdout, which carries only protocol messages: log to stderr (the default) or another file", file)
	}
	return nil
}

// logLevels are the documented --log-level values; zerolog knows more
// (trace, fatal, panic, disabled) that the bridge does not offer.
var logLevels = map[string]zerolog.Level{"debug": zerolog.DebugLevel, "info": zerolog.InfoLevel, "warn": zerolog.WarnLevel, "error": zerolog.ErrorLevel}

// zerologGlobals sets zerolog's package settings once per process: a
// goroutine of an earlier run in the same process (the tests run the
// command many times; the trim after the first answer logs when it ends)
// may be logging, reading them, when a later run builds its logger.
var zerologGlobals sync.Once

// newLogger builds the zerolog logger: console text or JSON, on stderr or
// appended to a file only this user may read (openLogFile: logs hold ids,
// methods, tool names and error messages, which a base may write with the
// arguments it was given).
func newLogger(level, format, file string, stderr io.Writer) (zerolog.Logger, func(), error) {
	lvl, ok := logLevels[strings.ToLower(level)]
	if !ok {
		return zerolog.Nop(), nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	zerologGlobals.Do(func() {
		zerolog.TimeFieldFormat = time.RFC3339Nano
		zerolog.DurationFieldUnit = time.Millisecond
	})
	w, closeFn := stderr, func() {}
	if file != "" {
		fh, err := openLogFile(file)
		if err != nil {
			return zerolog.Nop(), nil, fmt.Errorf("--log-file: %w", err)
		}
		w, closeFn = fh, func() { fh.Close() }
	}
	switch format {
	case "json":
	case "console":
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05.000", NoColor: file != "" || !isTerminal(stderr)}
	default:
		closeFn()
		return zerolog.Nop(), nil, fmt.Errorf("--log-format %q: want console or json", format)
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), closeFn, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// clientList names every client install knows, with its --client id,
// wrapped for a terminal.
func clientList() string {
	words := strings.Fields("Clients install registers it with (--client):")
	for i, c := range clientconf.Clients {
		sep := ","
		if i == len(clientconf.Clients)-1 {
			sep = "."
		}
		words = append(words, strings.Fields(c.Name)...)
		words = append(words, "("+c.ID+")"+sep)
	}
	words = append(words, strings.Fields("Any other MCP client, and the MCP Inspector, take the entry that --print-config prints.")...)
	return wrapWords(words, "", 76)
}

// wrapWords joins words with spaces into lines of at most width
// characters, each starting with indent (a word longer than the line gets
// a line of its own).
func wrapWords(words []string, indent string, width int) string {
	var b strings.Builder
	b.WriteString(indent)
	line, fresh := len(indent), true
	for _, w := range words {
		switch {
		case fresh:
		case line+1+len(w) > width:
			b.WriteString("\n" + indent)
			line = len(indent)
		default:
			b.WriteString(" ")
			line++
		}
		b.WriteString(w)
		line += len(w)
		fresh = false
	}
	return b.String()
}

// folderValue is a flag holding a folder's path. It is a string, but not
// pflag's "string": --help shows its default as typed, where %q doubled
// each backslash of a Windows path ("C:\\Users\\…").
type folderValue string

func (v *folderValue) String() string     { return string(*v) }
func (v *folderValue) Set(s string) error { *v = folderValue(s); return nil }
func (v *folderValue) Type() string       { return "folder" }

// clientIDs are the --client values of install, comma-separated.
func clientIDs() string { return strings.Join(clientconf.IDs(), ", ") }
