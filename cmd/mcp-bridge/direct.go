package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/verify/direct"
	"github.com/mcp-bridge/mcp-bridge/verify/doctor"
)

var directUsage = map[string]string{
	"tools":   "Usage: mcp-bridge tools [flags]\n\nLists the CAD base's tools straight from the base (no bridge).\n",
	"call":    "Usage: mcp-bridge call NAME [--args JSON] [flags]\n\nCalls one tool on the CAD base and prints what it returned. Exits 1 when\nthe tool reports an error or the base refuses the call.\n\nExample:\n  mcp-bridge call draw_circle --args '{\"center\":{\"x\":0,\"y\":0},\"radius\":5}'\n",
	"request": "Usage: mcp-bridge request JSON [flags]\n\nSends one raw JSON-RPC frame to the CAD base and prints the raw answer.\n\nExample:\n  mcp-bridge request '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}'\n",
	"doctor":  "Usage: mcp-bridge doctor [flags]\n\nChecks this installation: this binary, the CAD base (reachable, latency,\nits tools, schema portability under the Inspector's --strict rules, tool\nname lengths) and the client configurations on this machine that register\nmcp-bridge. With --launch it shows the program a bridge starts when the base\nis down, and whether it exists; --launch-test starts it. Exits 1 when it\nfinds a problem.\n",
}

// runDirect runs the commands that talk to the base without a bridge.
func runDirect(ctx context.Context, e *env, cmd string, args []string) error {
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	host := fs.String("host", "127.0.0.1", "CAD base host (env CAD_MCP_HOST)")
	port := fs.Int("port", 8080, "CAD base port (env CAD_MCP_PORT)")
	// Each command shows only the flags it uses.
	timeoutHelp := "time for the base to answer"
	if cmd == "doctor" {
		timeoutHelp = "time for each base to answer, and to read each client configuration"
	}
	timeout := fs.Duration("timeout", 30*time.Second, timeoutHelp)
	asJSON := new(bool)
	if cmd != "request" { // request prints the raw answer
		fs.BoolVar(asJSON, "json", false, "print JSON")
	}
	var callArgs *string
	name := new(string)
	trustProject := new(bool)
	switch cmd {
	case "call":
		callArgs = fs.String("args", "{}", "tool arguments, a JSON object")
	case "doctor":
		fs.StringVar(name, "name", "cad-autocad", "the server name clients use, for the name-length rule")
		fs.BoolVar(trustProject, "trust-project", false, "also run the commands and contact the URLs (with CAD_MCP_TOKEN) that the current folder's project files name; without it they are only read, as a cloned repository's files may name anything")
	}
	var rules ruleFlags
	if cmd == "tools" || cmd == "doctor" {
		rules.addPolicy(fs) // see the list as clients do
	}
	var lf launchFlags
	launchTest := new(bool)
	if cmd == "doctor" {
		lf.add(fs)
		fs.BoolVar(launchTest, "launch-test", false, "start the --launch program as a bridge would (only when the base is down), and wait for its base")
	}
	fs.Usage = func() { fmt.Fprintf(e.stdout, "%s\nFlags:\n%s", directUsage[cmd], usages(fs, all, nil)) }
	if done, err := parseFlags(fs, args); done {
		return err
	}
	settingNames := []string{"host", "port", "policy", "deny-tools", "allow-tools", "read-only"}
	if cmd == "doctor" {
		settingNames = append(settingNames, launchSettings...)
	}
	set, err := readSettings(fs, e.getenv, settingNames)
	if err != nil {
		return usageError{err}
	}
	if cmd == "doctor" {
		if err := lf.check(set); err != nil {
			return usageError{err}
		}
	}
	if *launchTest && lf.command == "" {
		return usageError{fmt.Errorf("--launch-test needs --launch (or CAD_MCP_LAUNCH), the program to start")}
	}
	rules.set = set
	wantArgs := map[string]int{"tools": 0, "doctor": 0, "call": 1, "request": 1}[cmd]
	if fs.NArg() != wantArgs {
		return usageError{fmt.Errorf("%s takes %d argument(s), got %d (mcp-bridge %[1]s --help)", cmd, wantArgs, fs.NArg())}
	}
	switch cmd {
	case "call":
		if err := jsonObject("--args", *callArgs); err != nil {
			return usageError{err}
		}
	case "request":
		if _, err := jsonValue("the request", fs.Arg(0)); err != nil {
			return usageError{err}
		}
	}
	pol, err := rules.load()
	if err != nil {
		return usageError{err}
	}
	if *port < 1 || *port > 65535 {
		return usageError{fmt.Errorf("%s %d: must be 1-65535", set.name("port"), *port)}
	}
	client := &tcpbase.Client{Addr: net.JoinHostPort(*host, strconv.Itoa(*port)), ConnectTimeout: 3 * time.Second}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	switch cmd {
	case "tools":
		var view func([]byte) []byte
		if pol != nil {
			view = pol.ApplyList
			fmt.Fprintf(e.stderr, "policy: %s\n", pol.Summary())
		}
		err = direct.PrintTools(ctx, e.stdout, client, *asJSON, view)
	case "call":
		err = direct.CallTool(ctx, e.stdout, e.stderr, client, fs.Arg(0), []byte(*callArgs), *asJSON)
		if direct.IsFailure(err) {
			suggestTool(ctx, e, client, fs.Arg(0))
		}
	case "request":
		var ans []byte
		ans, err = direct.BaseRequest(ctx, client, []byte(fs.Arg(0)))
		if err == nil {
			fmt.Fprintln(e.stdout, string(ans))
			if rpc.Field(ans, "error") != nil {
				return exitError{code: 1, msg: "the base answered with an error"}
			}
		} else if tcpbase.KindOf(err) == tcpbase.ErrClosed && !strings.Contains(fs.Arg(0), `"id"`) {
			fmt.Fprintln(e.stderr, "no answer (a notification gets none)")
			return nil
		}
	case "doctor":
		exe, _ := os.Executable()
		dir, _ := os.Getwd()
		desktopName, desktopWhy := "", ""
		if d, why := findDesktop(e.getenv); d != nil {
			desktopName = d.Name()
		} else {
			desktopWhy = why
		}
		rep := doctor.Check(parent, doctor.Options{Version: version, Executable: exe, Base: client, Timeout: *timeout, ServerName: *name, Getenv: e.getenv, Dir: dir, Policy: pol,
			Launch:    doctorLaunch(e, &lf, client.Addr, *launchTest),
			BaseGiven: set.from("host") != "default" || set.from("port") != "default", Settings: doctorSettings(set, settingNames),
			Reach: func(s clientconf.Server) (doctor.Reach, error) { return registrationReach(s, e.getenv) }, TLSFingerprint: tlscert.Existing(tlsDir(e.getenv)), TrustProject: *trustProject,
			Desktop: desktopName, DesktopWhyNot: desktopWhy})
		if *asJSON {
			out, _ := json.MarshalIndent(rep, "", "  ")
			fmt.Fprintln(e.stdout, string(out))
		} else {
			doctor.Print(e.stdout, rep)
		}
		if rep.Problems > 0 {
			return exitError{code: 1, msg: "doctor found " + doctor.Plural(rep.Problems, "problem")}
		}
		return nil
	}
	if direct.IsFailure(err) {
		return exitError{code: 1, msg: cmd + " failed"}
	}
	if tcpbase.KindOf(err) != nil {
		// The words the bridge's clients read, hint included.
		method := map[string]string{"tools": "tools/list", "call": "tools/call", "request": "the request"}[cmd]
		return errors.New(tcpbase.FailureMessage(err, client.Addr, method, *timeout))
	}
	return err
}

// registrationReach reads a registration's args and env as the bridge it
// starts will (flag, then CAD_MCP_<NAME> from the entry's env, then the
// default), and says which base that bridge talks to, with which list
// timeout and policy, and whether it would serve HTTP instead of stdio.
// A connect registration's token source is read from its args, its env,
// then doctor's own environment, which the client may share.
func registrationReach(s clientconf.Server, doctorEnv func(string) string) (doctor.Reach, error) {
	if len(s.Args) > 1 && s.Args[0] == "connect" {
		return doctor.Reach{Remote: s.Args[1], TokenFrom: connectTokenFrom(s, doctorEnv)}, nil
	}
	f := newBridgeFlags(io.Discard)
	getenv := func(k string) string { return s.Env[k] }
	if err := f.parse(s.Args, getenv); err != nil {
		return doctor.Reach{}, err
	}
	pol, err := f.rules.load()
	if err != nil {
		return doctor.Reach{}, err
	}
	from := func(flag string) string {
		switch src := f.set.from(flag); src {
		case "default":
			return "the default " + flag
		case "--" + flag:
			return src + " in its args"
		default:
			return src + " in its env"
		}
	}
	where := from("port")
	if f.host != "127.0.0.1" {
		where = from("host") + ", " + where
	}
	var launchCmd string
	if f.launch.command != "" {
		launchCmd = f.launch.cmd().String()
	}
	return doctor.Reach{
		LaunchProgram: f.launch.command, Launch: launchCmd, LaunchArgs: f.launch.args.GetSlice(), LaunchHome: launchHome(doctorEnv),
		Base:        &tcpbase.Client{Addr: f.addr(), ConnectTimeout: f.connectTimeout, MaxAnswer: f.maxMessage},
		From:        where,
		ListTimeout: f.listTimeout,
		Policy:      pol,
		ConfirmWith: f.rules.askers(pol),
		Listen:      f.listen,
	}, nil
}

// suggestTool, after a failed call, says when the base has no tool by that
// name, and which of its tools is nearest.
func suggestTool(ctx context.Context, e *env, client *tcpbase.Client, name string) {
	res, err := direct.ToolList(ctx, client)
	if err != nil {
		return
	}
	names := lifecycle.ToolNames(res)
	if slices.Contains(names, name) {
		return
	}
	fmt.Fprintf(e.stderr, "the base has no tool %q%s; mcp-bridge tools lists them\n", name, didYouMean(name, names))
}

// connectTokenFrom says where a connect registration's token comes from,
// in doctor's words: "--token-file PATH in its args", "CAD_MCP_TOKEN in
// its env", "CAD_MCP_TOKEN of this environment", or "no token".
func connectTokenFrom(s clientconf.Server, getenv func(string) string) string {
	c := newConnectFlags(io.Discard)
	fs := c.fs
	env := func(k string) string {
		if v, ok := s.Env[k]; ok {
			return v
		}
		if getenv == nil {
			return ""
		}
		return getenv(k)
	}
	if fs.Parse(s.Args[1:]) != nil {
		return "unknown (its args are not connect's)"
	}
	set, err := readSettings(fs, env, connectSettingNames)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	from := set.tokenFrom(c.tokenFile)
	var k string
	switch {
	case from == "":
		return "no token"
	case fs.Changed("token-file"):
		return from + " in its args"
	case from == tokenVar:
		k = tokenVar
	default:
		k = envName("token-file")
	}
	if _, ok := s.Env[k]; ok {
		return from + " in its env"
	}
	return from + " of this environment"
}

// doctorSettings are doctor's own settings and where each came from.
func doctorSettings(set *settings, names []string) []doctor.Setting {
	var out []doctor.Setting
	for _, n := range names {
		if set.fs.Lookup(n) == nil {
			continue
		}
		out = append(out, doctor.Setting{Name: n, Value: set.fs.Lookup(n).Value.String(), From: set.from(n)})
	}
	return out
}
