// Package setting is the one rule for every setting of mcp-bridge: the
// command line, else its CAD_MCP_<NAME> variable, else its default. Each
// domain declares its flags on a pflag.FlagSet (its AddFlags) and reads
// them in its ConfigFrom with Read, which marks on each flag whether its
// value came from the environment: messages then name what the user set
// (Origin.Name), and doctor says where each value came from
// (Origin.From).
package setting

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// EnvName is a flag's variable: --log-file's is CAD_MCP_LOG_FILE.
func EnvName(flag string) string {
	return "CAD_MCP_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// The annotations Read and Together leave on a flag.
const (
	readKey     = "mcp-bridge/setting"  // "env" or "default": Read has seen it
	togetherKey = "mcp-bridge/together" // the flags of its group
)

// Together marks flags of fs that together choose one thing (a
// certificate and its key, or a self-signed one): any of them on the
// command line decides the whole choice there, and the others' variables
// are not read. Otherwise --tls-self-signed on the command line with
// CAD_MCP_TLS_CERT in the environment was "both", and --tls-cert with
// CAD_MCP_TLS_KEY paired one certificate with another's key.
func Together(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if fl := fs.Lookup(n); fl != nil {
			annotate(fl, togetherKey, names)
		}
	}
}

// Read sets each flag of fs named in names that the command line did not
// give from its variable, read through getenv. A value a client passed
// through unfilled ("${user_config.port}") leaves the setting unset; a
// value the flag cannot take is an error naming the variable. A flag
// already read is not read again (a list would grow), so every domain
// may Read the flags it shares with another.
func Read(fs *pflag.FlagSet, getenv func(string) string, names ...string) error {
	for _, name := range names {
		fl := fs.Lookup(name)
		if fl == nil || fl.Annotations[readKey] != nil {
			continue
		}
		annotate(fl, readKey, []string{"default"})
		if onCommandLine(fs, fl) {
			continue
		}
		key := EnvName(name)
		v := getenv(key)
		if v == "" || Unsubstituted(v) {
			continue
		}
		// Value.Set, not fs.Set: Changed stays "on the command line". A
		// setting whose variable is read its own way (a list) says so.
		set := fl.Value.Set
		if ev, ok := fl.Value.(interface{ SetFromEnv(string) error }); ok {
			set = ev.SetFromEnv
		}
		if err := set(v); err != nil {
			return fmt.Errorf("environment %s=%q: %v", key, v, err)
		}
		fl.Annotations[readKey] = []string{"env"}
	}
	return nil
}

// List reads a comma-separated setting: its items, trimmed, the empty
// ones dropped; nil for none.
func List(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Unsubstituted is true for a value a client passed through without
// filling it in, such as Claude Desktop's "${user_config.port}" for a
// bundle setting that has no value: the bridge treats it as unset.
func Unsubstituted(v string) bool {
	return strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}")
}

// onCommandLine: the command line gave the flag, or another of its group.
func onCommandLine(fs *pflag.FlagSet, fl *pflag.Flag) bool {
	if fl.Changed {
		return true
	}
	for _, o := range fl.Annotations[togetherKey] {
		if g := fs.Lookup(o); g != nil && g.Changed {
			return true
		}
	}
	return false
}

func annotate(fl *pflag.Flag, key string, v []string) {
	if fl.Annotations == nil {
		fl.Annotations = map[string][]string{}
	}
	fl.Annotations[key] = v
}

// Origin says where each setting of a flag set came from. Its zero value
// says every setting came from the command line or its default.
type Origin struct{ fs *pflag.FlagSet }

// OriginOf is where the settings of fs came from, once Read.
func OriginOf(fs *pflag.FlagSet) Origin { return Origin{fs} }

func (o Origin) fromEnv(flag string) bool {
	if o.fs == nil {
		return false
	}
	fl := o.fs.Lookup(flag)
	return fl != nil && !fl.Changed && len(fl.Annotations[readKey]) > 0 && fl.Annotations[readKey][0] == "env"
}

// Name is what to call a setting in a message: "--policy" when it came
// from the command line or is the default, "CAD_MCP_POLICY" when it came
// from the environment.
func (o Origin) Name(flag string) string {
	if o.fromEnv(flag) {
		return EnvName(flag)
	}
	return "--" + flag
}

// From says where the setting came from: "--port", "CAD_MCP_PORT" or
// "default".
func (o Origin) From(flag string) string {
	switch {
	case o.fs != nil && o.fs.Changed(flag):
		return "--" + flag
	case o.fromEnv(flag):
		return EnvName(flag)
	}
	return "default"
}

// Error is a mistake in the settings found after they were read (a
// listen address other machines reach, with no token): the command
// line's, as a usage mistake is.
type Error struct{ Err error }

func (e Error) Error() string { return e.Err.Error() }
func (e Error) Unwrap() error { return e.Err }
