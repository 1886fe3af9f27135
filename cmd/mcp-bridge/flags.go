package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/clientfit"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/configs/setting"
	"github.com/mcp-bridge/mcp-bridge/configs/suggest"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
)

// bridgeFlags are the bridge's flags, each domain's under its help topic,
// and once parsed, each domain's settings (flag, then CAD_MCP_<NAME>,
// then default: the domain's ConfigFrom).
type bridgeFlags struct {
	fs *pflag.FlagSet

	base   tcpbase.Config
	core   bridge.Config // the core's own settings (bridge.ConfigFrom)
	fit    clientfit.Config
	rules  guard.Config
	launch launch.Config
	http   streamable.Config
	tel    telemetry.Config
	log    logSettings

	// The action flags: what the program does, or the shape of
	// --print-config's output. From the command line only: a client
	// starts the bridge with CAD_MCP_* in its environment, and
	// CAD_MCP_PRINT_CONFIG=true there must not turn the server into a
	// printer.
	version, printConfig bool
	name, client         string
}

func newBridgeFlags(stderr io.Writer) *bridgeFlags {
	f := &bridgeFlags{fs: pflag.NewFlagSet("mcp-bridge", pflag.ContinueOnError)}
	fs := f.fs
	fs.SetOutput(stderr)
	fs.SortFlags = false
	// Each flag in the group of its help topic (mcp-bridge help <topic>
	// lists the group's flags): a domain's flags stay together.
	addGroup(fs, "base", tcpbase.AddFlags)
	addGroup(fs, "base", bridge.AddFlags)
	addGroup(fs, "policy", guard.AddPolicyFlags)
	addGroup(fs, "policy", guard.AddConfirmFlags)
	addGroup(fs, "journal", guard.AddJournalFlags)
	addGroup(fs, "launch", launch.AddFlags)
	addGroup(fs, "diagnostics", addLogFlags)
	addGroup(fs, "clients", func(fs *pflag.FlagSet) {
		fs.BoolVar(&f.printConfig, "print-config", false, "print the JSON that registers this bridge with an MCP client, and exit")
		fs.StringVar(&f.name, "name", "cad-autocad", "server name in --print-config output (letters, digits, - and _; at most 64)")
		fs.StringVar(&f.client, "client", "generic", "--print-config shape: generic, inspector, "+strings.Join(clientconf.IDs(), ", "))
	})
	addGroup(fs, "clients", clientfit.AddFlags)
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	addGroup(fs, "http", streamable.AddFlags)
	addGroup(fs, "telemetry", telemetry.AddFlags)
	return f
}

// parse reads args, then each domain its settings from them and the
// environment, and checks them.
func (f *bridgeFlags) parse(args []string, getenv func(string) string) error {
	if err := f.fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return err
		}
		return suggest.Flag(f.fs, err)
	}
	var err error
	if f.rules, err = guard.ConfigFrom(f.fs, getenv); err != nil {
		return err
	}
	if f.launch, err = launch.ConfigFrom(f.fs, getenv); err != nil {
		return err
	}
	if f.base, err = tcpbase.ConfigFrom(f.fs, getenv); err != nil {
		return err
	}
	if f.core, err = bridge.ConfigFrom(f.fs, getenv); err != nil {
		return err
	}
	if f.fit, err = clientfit.ConfigFrom(f.fs, getenv); err != nil {
		return err
	}
	if f.log, err = logSettingsFrom(f.fs, getenv); err != nil {
		return err
	}
	if f.http, err = streamable.ConfigFrom(f.fs, getenv, bridge.CacheFolder(f.fs)); err != nil {
		return err
	}
	f.tel, err = telemetryFrom(f.fs, getenv, f.http.Listen)
	return err
}

// origin says where each of the bridge's settings came from.
func (f *bridgeFlags) origin() setting.Origin { return setting.OriginOf(f.fs) }

// telemetryFrom reads and checks the telemetry settings (the standard
// OTEL_* variables, not CAD_MCP_<NAME>). listen is --listen ("" for a
// stdio bridge or connect), where --metrics serves /metrics.
func telemetryFrom(fs *pflag.FlagSet, getenv func(string) string, listen string) (telemetry.Config, error) {
	cfg, err := telemetry.ConfigFrom(fs, getenv)
	if err == nil && cfg.Metrics && listen == "" && cfg.MetricsListen == "" {
		err = fmt.Errorf("--metrics serves /metrics on --listen: a stdio bridge serves it with --metrics-listen ADDR (e.g. 127.0.0.1:9464)")
	}
	return cfg, err
}
