package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/configs/setting"
	"github.com/mcp-bridge/mcp-bridge/configs/userfile"
)

// logSettings are --log-level, --log-format and --log-file, which the
// bridge and connect take alike.
type logSettings struct{ level, format, file string }

var logFlags = []string{"log-level", "log-format", "log-file"}

func addLogFlags(fs *pflag.FlagSet) {
	fs.String("log-level", "info", "debug, info, warn or error (env CAD_MCP_LOG_LEVEL)")
	fs.String("log-format", "console", "console or json (env CAD_MCP_LOG_FORMAT)")
	fs.String("log-file", "", "append logs to this file instead of stderr (env CAD_MCP_LOG_FILE)")
}

func logSettingsFrom(fs *pflag.FlagSet, getenv func(string) string) (logSettings, error) {
	err := setting.Read(fs, getenv, logFlags...)
	var l logSettings
	l.level, _ = fs.GetString("log-level")
	l.format, _ = fs.GetString("log-format")
	l.file, _ = fs.GetString("log-file")
	return l, err
}

// logLevels are the documented --log-level values; zerolog knows more
// (trace, fatal, panic, disabled) that the bridge does not offer.
var logLevels = map[string]zerolog.Level{"debug": zerolog.DebugLevel, "info": zerolog.InfoLevel, "warn": zerolog.WarnLevel, "error": zerolog.ErrorLevel}

// zerologGlobals sets zerolog's package settings once per process: a
// goroutine of an earlier run in the same process (the tests run the
// command many times; the trim after the first answer logs when it ends)
// may be logging, reading them, when a later run builds its logger.
var zerologGlobals sync.Once

// newLogger builds the zerolog logger of every command that logs: console
// text or JSON, on stderr or appended to a file only this user may read
// (logs hold ids, methods, tool names and error messages, which a base
// may write with the arguments it was given), never the command's stdout,
// which carries only protocol messages.
func (l logSettings) newLogger(stdout, stderr io.Writer) (zerolog.Logger, func(), error) {
	if err := notStdout(l.file, stdout); err != nil {
		return zerolog.Nop(), nil, err
	}
	lvl, ok := logLevels[strings.ToLower(l.level)]
	if !ok {
		return zerolog.Nop(), nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", l.level)
	}
	zerologGlobals.Do(func() {
		zerolog.TimeFieldFormat = time.RFC3339Nano
		zerolog.DurationFieldUnit = time.Millisecond
	})
	w, closeFn := stderr, func() {}
	if l.file != "" {
		fh, err := userfile.OpenPrivate(l.file)
		if err != nil {
			return zerolog.Nop(), nil, fmt.Errorf("--log-file: %w", err)
		}
		w, closeFn = fh, func() { fh.Close() }
	}
	switch l.format {
	case "json":
	case "console":
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05.000", NoColor: l.file != "" || !isTerminal(stderr)}
	default:
		closeFn()
		return zerolog.Nop(), nil, fmt.Errorf("--log-format %q: want console or json", l.format)
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), closeFn, nil
}

// notStdout refuses a log file that is the command's stdout (such as
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

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
