package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/clientfit"
	"github.com/mcp-bridge/mcp-bridge/bridge/connect"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/policy"
	"github.com/mcp-bridge/mcp-bridge/bridge/streamable/tlscert"
	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/configs/setting"
	"github.com/mcp-bridge/mcp-bridge/configs/suggest"
	"github.com/mcp-bridge/mcp-bridge/lifecycle"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
	"github.com/mcp-bridge/mcp-bridge/verify/direct"
	"github.com/mcp-bridge/mcp-bridge/verify/doctor"
)

var directUsage = map[string]string{
	"tools":   "Usage: mcp-bridge tools [flags]\n\nLists the CAD base's tools straight from the base (no bridge).\n",
	"call":    "Usage: mcp-bridge call NAME [--args JSON] [flags]\n\nCalls one tool on the CAD base and prints what it returned. Exits 1 when\nthe tool reports an error or the base refuses the call.\n\nExample:\n  mcp-bridge call draw_circle --args '{\"center\":{\"x\":0,\"y\":0},\"radius\":5}'\n",
	"request": "Usage: mcp-bridge request JSON [flags]\n\nSends one raw JSON-RPC frame to the CAD base and prints the raw answer.\n\nExample:\n  mcp-bridge request '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}'\n",
	"doctor":  "Usage: mcp-bridge doctor [flags]\n\nChecks this installation: this binary, the CAD base (reachable, latency,\nits tools, schema portability under the Inspector's --strict rules, tool\nname lengths) and the client configurations on this machine that register\nmcp-bridge. With --launch it shows the program a bridge starts when the base\nis down, and whether it exists; --launch-test starts it. Exits 1 when it\nfinds a problem.\n",
}

// directCmd is one of the commands that talk to the base without a
// bridge (tools, call, request, doctor): its flags, each command showing
// only those it uses, and once parsed, its settings.
type directCmd struct {
	name string
	fs   *pflag.FlagSet

	timeout                  time.Duration
	asJSON                   bool
	callArgs, serverName     string // call's --args, doctor's --name
	trustProject, launchTest bool   // doctor's

	base   tcpbase.Config
	rules  guard.Config
	policy *policy.Policy // the rules' (tools and doctor show the list as clients see it)
	launch launch.Config
	fit    clientfit.Config // doctor's: the clients' limits a bridge with these settings keeps
	origin setting.Origin
}

func newDirectCmd(cmd string, stderr io.Writer) *directCmd {
	d := &directCmd{name: cmd, fs: pflag.NewFlagSet(cmd, pflag.ContinueOnError)}
	fs := d.fs
	fs.SetOutput(stderr)
	fs.SortFlags = false
	tcpbase.AddAddrFlags(fs)
	timeoutHelp := "time for the base to answer"
	if cmd == "doctor" {
		timeoutHelp = "time for each base to answer, and to read each client configuration"
	}
	fs.DurationVar(&d.timeout, "timeout", 30*time.Second, timeoutHelp)
	if cmd != "request" { // request prints the raw answer
		fs.BoolVar(&d.asJSON, "json", false, "print JSON")
	}
	switch cmd {
	case "call":
		fs.StringVar(&d.callArgs, "args", "{}", "tool arguments, a JSON object")
	case "doctor":
		fs.StringVar(&d.serverName, "name", "cad-autocad", "the server name clients use, for the name-length rule")
		fs.BoolVar(&d.trustProject, "trust-project", false, "also run the commands and contact the URLs (with CAD_MCP_TOKEN) that the current folder's project files name; without it they are only read, as a cloned repository's files may name anything")
	}
	if cmd == "tools" || cmd == "doctor" {
		guard.AddPolicyFlags(fs) // see the list as clients do
	}
	if cmd == "doctor" {
		launch.AddFlags(fs)
		clientfit.AddFlags(fs)
		fs.BoolVar(&d.launchTest, "launch-test", false, "start the --launch program as a bridge would (only when the base is down), and wait for its base")
	}
	return d
}

// parse reads the command line and the settings, and checks them.
func (d *directCmd) parse(args []string, getenv func(string) string) error {
	var err error
	if d.rules, err = guard.ConfigFrom(d.fs, getenv); err != nil {
		return err
	}
	if d.name == "doctor" {
		if d.launch, err = launch.ConfigFrom(d.fs, getenv); err != nil {
			return err
		}
		if d.fit, err = clientfit.ConfigFrom(d.fs, getenv); err != nil {
			return err
		}
	}
	if d.launchTest && d.launch.Program == "" {
		return fmt.Errorf("--launch-test needs --launch (or CAD_MCP_LAUNCH), the program to start")
	}
	want := map[string]int{"tools": 0, "doctor": 0, "call": 1, "request": 1}[d.name]
	if d.fs.NArg() != want {
		return fmt.Errorf("%s takes %d argument(s), got %d (mcp-bridge %[1]s --help)", d.name, want, d.fs.NArg())
	}
	switch d.name {
	case "call":
		err = direct.JSONObject("--args", d.callArgs)
	case "request":
		_, err = direct.JSONValue("the request", d.fs.Arg(0))
	}
	if err != nil {
		return err
	}
	if d.policy, err = d.rules.LoadPolicy(); err != nil {
		return err
	}
	d.base, err = tcpbase.ConfigFrom(d.fs, getenv)
	d.origin = setting.OriginOf(d.fs)
	return err
}

// runDirect runs the commands that talk to the base without a bridge.
func runDirect(ctx context.Context, e *env, cmd string, args []string) error {
	d := newDirectCmd(cmd, e.stderr)
	d.fs.Usage = func() { fmt.Fprintf(e.stdout, "%s\nFlags:\n%s", directUsage[cmd], usages(d.fs, all, nil)) }
	if done, err := parseFlags(d.fs, args); done {
		return err
	}
	if err := d.parse(args, e.getenv); err != nil {
		return usageError{err}
	}
	pol, client := d.policy, d.base.Client(0)
	if cmd == "doctor" {
		return d.doctor(ctx, e, client, pol)
	}
	callCtx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	var err error
	switch cmd {
	case "tools":
		var view func([]byte) []byte
		if pol != nil {
			view = pol.ApplyList
			fmt.Fprintf(e.stderr, "policy: %s\n", pol.Summary())
		}
		err = direct.PrintTools(callCtx, e.stdout, client, d.asJSON, view)
	case "call":
		err = direct.CallTool(callCtx, e.stdout, e.stderr, client, d.fs.Arg(0), []byte(d.callArgs), d.asJSON)
		if direct.IsFailure(err) {
			suggestTool(callCtx, e, client, d.fs.Arg(0))
		}
	case "request":
		if done, rerr := d.request(callCtx, e, client); done {
			return rerr
		} else {
			err = rerr
		}
	}
	return d.failure(err, client)
}

// request sends the raw frame; done when its outcome is the command's.
func (d *directCmd) request(ctx context.Context, e *env, client *tcpbase.Client) (bool, error) {
	ans, err := direct.BaseRequest(ctx, client, []byte(d.fs.Arg(0)))
	switch {
	case err == nil:
		fmt.Fprintln(e.stdout, string(ans))
		if rpc.Field(ans, "error") != nil {
			return true, exitError{code: 1, msg: "the base answered with an error"}
		}
		return true, nil
	case tcpbase.KindOf(err) == tcpbase.ErrClosed && !strings.Contains(d.fs.Arg(0), `"id"`):
		fmt.Fprintln(e.stderr, "no answer (a notification gets none)")
		return true, nil
	}
	return false, err
}

// failure is the command's error for err: exit 1 for a tool's failure, and
// for the base's the words the bridge's clients read, hint included.
func (d *directCmd) failure(err error, client *tcpbase.Client) error {
	if direct.IsFailure(err) {
		return exitError{code: 1, msg: d.name + " failed"}
	}
	if tcpbase.KindOf(err) != nil {
		method := map[string]string{"tools": "tools/list", "call": "tools/call", "request": "the request"}[d.name]
		return errors.New(tcpbase.FailureMessage(err, client.Addr, method, d.timeout))
	}
	return err
}

// doctor checks this installation (verify/doctor) and prints the report.
func (d *directCmd) doctor(ctx context.Context, e *env, client *tcpbase.Client, pol *policy.Policy) error {
	exe, _ := os.Executable()
	dir, _ := os.Getwd()
	desktopName, desktopWhy := "", ""
	if a, why := findDesktop(e.getenv); a != nil {
		desktopName = a.Name()
	} else {
		desktopWhy = why
	}
	settings := []string{"host", "port", "policy", "deny-tools", "allow-tools", "read-only"}
	rep := doctor.Check(ctx, doctor.Options{Version: version, Executable: exe, Base: client, Timeout: d.timeout, ServerName: d.serverName, Getenv: e.getenv, Dir: dir, Policy: pol,
		Launch:    doctorLaunch(e, d.launch, client.Addr, d.launchTest),
		BaseGiven: d.origin.From("host") != "default" || d.origin.From("port") != "default", Settings: append(doctorSettings(d.fs, append(settings, launch.Flags...)), fitSettings(d.fit, d.fs)...),
		Reach: func(s clientconf.Server) (doctor.Reach, error) { return registrationReach(s, e.getenv) }, TLSFingerprint: tlscert.Existing(tlsDir(e.getenv)), TrustProject: d.trustProject,
		Desktop: desktopName, DesktopWhyNot: desktopWhy})
	if d.asJSON {
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

// tlsDir is where --tls-self-signed keeps its certificate, for doctor:
// CAD_MCP_CACHE_DIR, else the default cache folder.
func tlsDir(getenv func(string) string) string {
	if d := getenv("CAD_MCP_CACHE_DIR"); d != "" {
		return d
	}
	return bridge.DefaultCacheDir()
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
	pol, err := f.rules.LoadPolicy()
	if err != nil {
		return doctor.Reach{}, err
	}
	from := func(flag string) string {
		switch src := f.origin().From(flag); src {
		case "default":
			return "the default " + flag
		case "--" + flag:
			return src + " in its args"
		default:
			return src + " in its env"
		}
	}
	where := from("port")
	if f.base.Host != tcpbase.DefaultHost {
		where = from("host") + ", " + where
	}
	var launchCmd string
	if f.launch.Program != "" {
		launchCmd = f.launch.Command().String()
	}
	return doctor.Reach{
		LaunchProgram: f.launch.Program, Launch: launchCmd, LaunchArgs: f.launch.Args, LaunchHome: launch.Home(doctorEnv),
		Base:        f.base.Client(f.core.MaxMessage),
		From:        where,
		ListTimeout: f.core.ListTimeout,
		Policy:      pol,
		ConfirmWith: f.rules.Askers(pol),
		Listen:      f.http.Listen,
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
	fmt.Fprintf(e.stderr, "the base has no tool %q%s; mcp-bridge tools lists them\n", name, suggest.DidYouMean(name, names))
}

// connectTokenFrom says where a connect registration's token comes from,
// in doctor's words: "--token-file PATH in its args", "CAD_MCP_TOKEN in
// its env", "CAD_MCP_TOKEN of this environment", or "no token".
func connectTokenFrom(s clientconf.Server, getenv func(string) string) string {
	fs := newConnectFlags(io.Discard)
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
	if err := setting.Read(fs, env, connect.Flags...); err != nil {
		return "unknown (" + err.Error() + ")"
	}
	from := setting.TokenFrom(fs, env).From()
	var k string
	switch {
	case from == "":
		return "no token"
	case fs.Changed("token-file"):
		return from + " in its args"
	case from == setting.TokenVar:
		k = setting.TokenVar
	default:
		k = setting.EnvName("token-file")
	}
	if _, ok := s.Env[k]; ok {
		return from + " in its env"
	}
	return from + " of this environment"
}

// fitSettings are the clients' limits' settings as doctor shows them.
func fitSettings(c clientfit.Config, fs *pflag.FlagSet) []doctor.Setting {
	var out []doctor.Setting
	for _, s := range c.Settings(fs) {
		out = append(out, doctor.Setting{Name: s.Name, Value: s.Value, From: s.From})
	}
	return out
}

// doctorSettings are doctor's own settings and where each came from.
func doctorSettings(fs *pflag.FlagSet, names []string) []doctor.Setting {
	var out []doctor.Setting
	for _, n := range names {
		if fl := fs.Lookup(n); fl != nil {
			out = append(out, doctor.Setting{Name: n, Value: fl.Value.String(), From: setting.OriginOf(fs).From(n)})
		}
	}
	return out
}
