package register

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
)

// PrintEntry is what --print-config prints for a bridge the client starts,
// s: the JSON (TOML for Codex) that registers it with client (an id of
// clientconf's, generic or inspector) under name, on stdout; on stderr, a
// warning when s's binary lives in a folder that will not last, and the
// ready command for clients that have one. A client it does not know is
// a UsageError; didYouMean is the program's rule for a mistyped one.
func PrintEntry(stdout, stderr io.Writer, ce clientconf.Env, client, name string, s clientconf.Server, didYouMean func(string, []string) string) error {
	c := clientconf.Lookup(client)
	switch client {
	case "generic", "inspector":
		c = &clientconf.Client{ID: client, Type: "stdio"}
	case "":
		c = nil
	}
	if c == nil {
		return usage("--client %q%s: want generic, inspector, %s", client, didYouMean(client, append([]string{"generic", "inspector"}, clientconf.IDs()...)), strings.Join(clientconf.IDs(), ", "))
	}
	installed := c.ID
	if clientconf.Lookup(c.ID) == nil {
		installed = "…"
	}
	fmt.Fprint(stderr, TransientWarning(ce, s.Command, "install --copy --client "+installed))
	doc, err := clientconf.Document(c, name, s)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, doc)
	entry, _ := clientconf.Marshal(clientconf.EntryJSON(c, s), "")
	if c.Paste != "" {
		fmt.Fprintf(stderr, "%s has no file to install into: paste this in %s\n", c.Name, c.Paste)
	}
	switch c.ID {
	case "claude-code":
		fmt.Fprintf(stderr, "or run:\n  claude mcp add-json --scope user %s %s\n", name, ShellQuote(entry))
	case "vscode", "vscode-insiders":
		named, _ := clientconf.Marshal(append(clientconf.Named(name), clientconf.EntryJSON(c, s)...), "")
		code := map[string]string{"vscode": "code", "vscode-insiders": "code-insiders"}[c.ID]
		fmt.Fprintf(stderr, "or run:\n  %s --add-mcp %s\n", code, ShellQuote(named))
	}
	return nil
}
