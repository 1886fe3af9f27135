package clientfit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Config is what the user set over the table, for every client alike.
// Each setting is either not set (the table decides, per client) or set:
// to 0, no limit for any client, the table's included; to a value, that
// value for every client, known or not.
type Config struct {
	// AnswerWithin is --answer-within (CAD_MCP_ANSWER_WITHIN): how long
	// every client waits for a tools/call.
	AnswerWithin    time.Duration
	AnswerWithinSet bool
	// MaxResultBytes is --max-result-bytes (CAD_MCP_MAX_RESULT_BYTES): the
	// largest tools/call result every client takes. It leaves the table's
	// picture limits as they are: those are the Claude API's.
	MaxResultBytes    int
	MaxResultBytesSet bool
}

// MinResultBytes is the smallest limit on a result that Fit can keep to:
// room for a note saying what was left out. --max-result-bytes refuses
// less; Fit takes a smaller limit as this one.
const MinResultBytes = 1024

// envelopeRoom is what of MinResultBytes is left to the message around
// the result (its id: {"jsonrpc":"2.0","id":…,"result":} is 33 bytes and
// the id's): at the smallest limit, an id of up to 220 bytes still gets a
// result with its notes. minFitBytes is then the least room Fit keeps to.
const (
	envelopeRoom = 256
	minFitBytes  = MinResultBytes - envelopeRoom
)

// minAnswerWithin is the shortest --answer-within: below a second every
// call would become a job.
const minAnswerWithin = time.Second

const (
	flagAnswerWithin   = "answer-within"
	flagMaxResultBytes = "max-result-bytes"
	envAnswerWithin    = "CAD_MCP_ANSWER_WITHIN"
	envMaxResultBytes  = "CAD_MCP_MAX_RESULT_BYTES"
)

// AddFlags registers --answer-within and --max-result-bytes on fs.
// ConfigFrom reads them, after fs.Parse, over their variables.
func AddFlags(fs *pflag.FlagSet) {
	fs.Duration(flagAnswerWithin, 0, "answer every tools/call within `DURATION`: a call CAD is still working on then is answered with a job to collect with wait_for_cad; 0: wait as long as CAD takes; default: each client's own limit (docs/limits.md) (env "+envAnswerWithin+")")
	fs.Var(new(unsetInt), flagMaxResultBytes, "give every client tool results of at most `N` bytes, pictures scaled down and text cut to fit, saying so; 0: no limit; default: each client's own limit (docs/limits.md) (env "+envMaxResultBytes+")")
}

// ConfigFrom reads the settings: a flag given on fs wins over its
// variable (read through getenv), which wins over the table. A value that
// cannot be read is an error naming the setting.
func ConfigFrom(fs *pflag.FlagSet, getenv func(string) string) (Config, error) {
	var c Config
	var errs []error
	if f := fs.Lookup(flagAnswerWithin); f != nil && f.Changed {
		c.AnswerWithin, _ = fs.GetDuration(flagAnswerWithin)
		c.AnswerWithinSet = true
	} else if v := strings.TrimSpace(getenv(envAnswerWithin)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want a duration such as 3m30s or 90s (0: no limit)", envAnswerWithin, v))
		} else {
			c.AnswerWithin, c.AnswerWithinSet = d, true
			fromEnv(fs, flagAnswerWithin, v)
		}
	}
	if f := fs.Lookup(flagMaxResultBytes); f != nil && f.Changed {
		c.MaxResultBytes, _ = fs.GetInt(flagMaxResultBytes)
		c.MaxResultBytesSet = true
	} else if v := strings.TrimSpace(getenv(envMaxResultBytes)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want a number of bytes such as 1048576 (0: no limit)", envMaxResultBytes, v))
		} else {
			c.MaxResultBytes, c.MaxResultBytesSet = n, true
			fromEnv(fs, flagMaxResultBytes, v)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// fromEnv gives a flag the value its variable set, as the other settings'
// flags get theirs (configs/setting.Read), without marking it given on
// the command line: install and --print-config write the flags whose value
// is not their default into the client's entry, so a setting from the
// environment is kept there too.
func fromEnv(fs *pflag.FlagSet, flag, v string) {
	if f := fs.Lookup(flag); f != nil {
		_ = f.Value.Set(v)
	}
}

// Validate checks the values set.
func (c Config) Validate() error {
	var errs []error
	if c.AnswerWithinSet && (c.AnswerWithin < 0 || c.AnswerWithin > 0 && c.AnswerWithin < minAnswerWithin) {
		errs = append(errs, fmt.Errorf("--answer-within %s: want 0 (no limit) or at least %s", c.AnswerWithin, minAnswerWithin))
	}
	if c.MaxResultBytesSet && (c.MaxResultBytes < 0 || c.MaxResultBytes > 0 && c.MaxResultBytes < MinResultBytes) {
		errs = append(errs, fmt.Errorf("--max-result-bytes %d: want 0 (no limit) or at least %d, room for the note saying what was left out", c.MaxResultBytes, MinResultBytes))
	}
	return errors.Join(errs...)
}

// For returns the limits for the client that named itself name in its
// clientInfo: the table's row, with the settings laid over it.
func (c Config) For(name string) Limits {
	row, _ := Lookup(name)
	l := row.Limits
	if l.For == "" {
		l.For = row.Product
	}
	if c.AnswerWithinSet {
		l.AnswerWithin = c.AnswerWithin
	}
	if c.MaxResultBytesSet {
		l.MaxResultBytes = c.MaxResultBytes
	}
	return l
}

// unsetInt is an int flag whose default is "not set" (each client's own
// limit), which help must not show as "(default 0)": 0 set is no limit.
// Its type is "int", so that fs.GetInt reads it once set.
type unsetInt struct {
	n   int
	set bool
}

func (v *unsetInt) String() string {
	if !v.set {
		return ""
	}
	return strconv.Itoa(v.n)
}

func (v *unsetInt) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return errors.New("want a number of bytes such as 1048576 (0: no limit)")
	}
	v.n, v.set = n, true
	return nil
}

func (v *unsetInt) Type() string { return "int" }

// Setting is one of the settings as doctor reports it: its flag, its
// value, and where it came from (the flag, its variable, or "default").
type Setting struct{ Name, Value, From string }

// Settings are the two settings as read from fs (after ConfigFrom): a
// value not set reads "each client's own".
func (c Config) Settings(fs *pflag.FlagSet) []Setting {
	one := func(flag, env string, set bool, value string) Setting {
		switch f := fs.Lookup(flag); {
		case !set:
			return Setting{Name: flag, Value: "each client's own", From: "default"}
		case f != nil && f.Changed:
			return Setting{Name: flag, Value: value, From: "--" + flag}
		default:
			return Setting{Name: flag, Value: value, From: env}
		}
	}
	return []Setting{
		one(flagAnswerWithin, envAnswerWithin, c.AnswerWithinSet, c.AnswerWithin.String()),
		one(flagMaxResultBytes, envMaxResultBytes, c.MaxResultBytesSet, strconv.Itoa(c.MaxResultBytes)),
	}
}
