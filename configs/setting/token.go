package setting

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// TokenVar holds the bearer token itself, beside --token-file and its
// CAD_MCP_TOKEN_FILE.
const TokenVar = "CAD_MCP_TOKEN"

// MaxTokenFile bounds what --token-file reads: a token is one short line.
const MaxTokenFile = 64 << 10

// Token is where a bearer token comes from, for a bridge that serves one
// and for connect and verify, which send one: --token-file on the command
// line (even empty: no token), else CAD_MCP_TOKEN, else
// CAD_MCP_TOKEN_FILE. It is decided when the flags are read, and the file
// read when the token is needed (a serving bridge may make it first).
type Token struct {
	File  string // the file to read; "" for none
	value string // CAD_MCP_TOKEN's token
	name  string // what to call File in a message: --token-file or CAD_MCP_TOKEN_FILE
}

// TokenFrom is the token source of fs's --token-file (Read already) and
// the environment.
func TokenFrom(fs *pflag.FlagSet, getenv func(string) string) Token {
	t := Token{name: OriginOf(fs).Name("token-file")}
	if fl := fs.Lookup("token-file"); fl != nil {
		t.File = fl.Value.String()
		if fl.Changed {
			return t
		}
	}
	if v := strings.TrimSpace(getenv(TokenVar)); v != "" {
		return Token{value: v}
	}
	return t
}

// Name is what to call File in a message: --token-file, or
// CAD_MCP_TOKEN_FILE when it came from there.
func (t Token) Name() string { return t.name }

// FromVar: the token is CAD_MCP_TOKEN's, and no file is read.
func (t Token) FromVar() bool { return t.value != "" }

// From says where the token comes from, without reading the file:
// "--token-file PATH", "CAD_MCP_TOKEN" or "CAD_MCP_TOKEN_FILE PATH"; ""
// for no token. The token is never in it.
func (t Token) From() string {
	switch {
	case t.value != "":
		return TokenVar
	case t.File != "":
		return t.name + " " + t.File
	}
	return ""
}

// Read is the token and From; both "" for no token. The token is never
// in an error.
func (t Token) Read() (token, from string, err error) {
	if t.value != "" {
		if err := CheckToken(t.value); err != nil {
			return "", "", fmt.Errorf("%s %w", TokenVar, err)
		}
		return t.value, TokenVar, nil
	}
	if t.File == "" {
		return "", "", nil
	}
	from = t.From()
	raw, err := ReadSmall(t.name, t.File, MaxTokenFile, "a token file")
	if err != nil {
		return "", "", err
	}
	// Windows editors may start a UTF-8 file with a byte order mark: it
	// is not part of the token.
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	tok, _, _ := strings.Cut(string(raw), "\n")
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", "", fmt.Errorf("%s is empty", from)
	}
	if err := CheckToken(tok); err != nil {
		return "", "", fmt.Errorf("%s %w", from, err)
	}
	return tok, from, nil
}

// CheckToken refuses a token that cannot travel in an HTTP header:
// control characters (a file saved as UTF-16 is full of NUL bytes).
// Without this, every request failed with an error about the header, at
// run time.
func CheckToken(t string) error {
	for _, c := range []byte(t) {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("holds control characters, which no HTTP header carries (a file saved as UTF-16? save it as UTF-8 or plain ASCII)")
		}
	}
	return nil
}

// ReadSmall reads the file a setting names (name: "--ca" or "CAD_MCP_CA"),
// at most max bytes: a file that does not end soon (a device such as
// /dev/zero, a pipe fed without end) is not read to its end, but refused
// as not kind, the kind of file the setting takes.
func ReadSmall(name, path string, max int, kind string) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer file.Close()
	raw, err := io.ReadAll(io.LimitReader(file, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(raw) > max {
		return nil, fmt.Errorf("%s %s is over %d KiB: not %s", name, path, max>>10, kind)
	}
	return raw, nil
}
