package register

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
)

// URLClients are the clients --print-config --listen writes the URL
// entry for ("type": "http", the URL, the token header), and for which
// install --listen's refusal shows that command.
var URLClients = map[string]bool{"generic": true, "codebuddy": true, "cursor": true, "inspector": true, "claude-code": true, "vscode": true}

// URLEntry is what --print-config prints for a bridge serving HTTP at
// Listen: the client's entry with the URL, then, on stderr, where the
// token comes from and how a client pins a self-signed certificate.
type URLEntry struct {
	Client, Name string // --client and --name
	Listen       string // --listen, host:port
	HTTPS        bool   // --tls-cert or --tls-self-signed: the bridge serves https:// only
	SelfSigned   bool
	TokenFrom    string // where the bridge's token comes from (setting.Token.From); "" for none
	TokenFile    string // its --token-file, "" for none
	// Fingerprint is the self-signed certificate's kept in CertDir, ""
	// before the bridge has made it; DoctorShows: CertDir is where doctor
	// looks for it.
	Fingerprint, CertDir string
	DoctorShows          bool
	// DidYouMean is the program's rule for a mistyped --client.
	DidYouMean func(word string, candidates []string) string
}

// Print writes the entry on stdout, and what to know besides on stderr
// (stdout is the JSON, pasted or piped as it is). The Authorization
// header names CAD_MCP_TOKEN in the client's own syntax, never the token:
// what is printed gets pasted into files, chats and tickets (install
// writes the same). A client that takes no URL entry is a UsageError.
func (u URLEntry) Print(stdout, stderr io.Writer) error {
	switch {
	case u.Client == "claude-desktop":
		return UsageError{errors.New("Claude Desktop's configuration file takes stdio servers only: print the stdio form (without --listen), or add the URL under Settings > Connectors")}
	case !URLClients[u.Client]:
		known := []string{"generic", "claude-desktop", "claude-code", "codebuddy", "cursor", "vscode", "inspector"}
		return usage("--client %q%s: want generic, claude-desktop, claude-code, codebuddy, cursor, vscode or inspector", u.Client, u.didYouMean(u.Client, known))
	}
	url, wildcard := u.url()
	server := map[string]any{"type": "http", "url": url}
	ref := "${" + clientconf.TokenVar + "}"
	if c := clientconf.Lookup(u.Client); c != nil && c.URLForm != nil && c.URLForm.VarRef != "" {
		ref = c.TokenRef()
	}
	if u.TokenFrom != "" {
		server["headers"] = map[string]string{"Authorization": "Bearer " + ref}
	}
	key := "mcpServers"
	if u.Client == "vscode" {
		key = "servers"
	}
	out, _ := json.MarshalIndent(map[string]any{key: map[string]any{u.Name: server}}, "", "  ")
	fmt.Fprintln(stdout, string(out))
	if u.TokenFrom != "" {
		fmt.Fprintf(stderr, "the token: the entry sends it from the %s variable (%s), not written in it; set %[1]s to the token where the client starts", clientconf.TokenVar, ref)
		if u.TokenFile != "" {
			fmt.Fprintf(stderr, ", e.g.\n  %s\n", SetTokenVar(runtime.GOOS, u.TokenFile))
		} else {
			fmt.Fprintf(stderr, "\n")
		}
		if u.Client == "generic" || u.Client == "inspector" {
			fmt.Fprintf(stderr, "(a client that does not fill %s in needs the token in its place: keep such a file to yourself)\n", ref)
		}
	}
	if u.SelfSigned {
		fmt.Fprint(stderr, u.pinNote(url, wildcard))
	}
	return nil
}

func (u URLEntry) didYouMean(word string, candidates []string) string {
	if u.DidYouMean == nil {
		return ""
	}
	return u.DidYouMean(word, candidates)
}

// url is the URL clients use: the listen address, or 127.0.0.1 for a
// bridge listening on every interface (wildcard).
func (u URLEntry) url() (url string, wildcard bool) {
	host, port, _ := net.SplitHostPort(u.Listen)
	wildcard = host == "" || host == "0.0.0.0" || host == "::"
	if wildcard {
		host = "127.0.0.1"
	}
	scheme := "http"
	if u.HTTPS {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + "/mcp", wildcard
}

// pinNote tells how a client reaches a bridge serving a self-signed
// certificate: through connect, which pins it by its fingerprint (no
// client accepts the certificate by itself, nor pins one). Before the
// bridge has made it, the note says where to read the fingerprint.
func (u URLEntry) pinNote(url string, wildcard bool) string {
	fp := u.Fingerprint
	if fp == "" {
		fp = "sha256:…"
	}
	cmd := "mcp-bridge connect " + url + " --fingerprint " + fp
	if clientconf.Lookup(u.Client) != nil {
		cmd = "mcp-bridge install --client " + u.Client + " --url " + url + " --fingerprint " + fp
	}
	if u.TokenFile != "" {
		cmd += " --token-file " + ShellQuoteIfNeeded(u.TokenFile)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the certificate is self-signed: a client given this URL refuses it. Register the bridge through connect, which pins the certificate by its fingerprint:\n  %s\n", cmd)
	if wildcard {
		fmt.Fprintf(&b, "(on another machine, with this machine's name or address in the URL)\n")
	}
	if u.Fingerprint != "" {
		fmt.Fprintf(&b, "(the fingerprint of the certificate kept in %s)\n", u.CertDir)
	} else {
		fmt.Fprintf(&b, "the fingerprint is not known yet: the bridge makes the certificate in %s when it first starts with --tls-self-signed, and logs it; then this command prints it", u.CertDir)
		if u.DoctorShows {
			fmt.Fprintf(&b, ", and mcp-bridge doctor shows it")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ListenRefusal explains why install does not take --listen, and shows
// the commands that do what the user wants: an entry the client starts
// has to serve stdio; a bridge serving HTTP is started by the user, and
// the client is given its URL. args are install's arguments.
func ListenRefusal(client, name, listen string, args []string) error {
	var rest []string
	fromEnv := true
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--listen" && i+1 < len(args):
			i++
			fromEnv = false
		case strings.HasPrefix(a, "--listen="):
			fromEnv = false
		default:
			rest = append(rest, ShellQuoteIfNeeded(a))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "install does not take --listen: the entry it writes is started by the client, which talks to it over stdio, and with --listen the bridge would serve HTTP instead: the client would get no answer.\n")
	if fromEnv {
		fmt.Fprintf(&b, "(--listen comes from CAD_MCP_LISTEN in your environment: unset it first.)\n")
	}
	fmt.Fprintf(&b, "To let the client start the bridge (the usual way):\n  mcp-bridge install %s\n", strings.Join(rest, " "))
	fmt.Fprintf(&b, "To use HTTP, start the bridge yourself and give the client its URL:\n  mcp-bridge --listen %s\n", listen)
	url, _ := URLEntry{Listen: listen}.url()
	switch {
	case client == "claude-code":
		fmt.Fprintf(&b, "  claude mcp add --transport http %s %s   (add --header \"Authorization: Bearer …\" with a token)", name, url)
	case URLClients[client]:
		fmt.Fprintf(&b, "  mcp-bridge --print-config --client %s --listen %s   (prints the entry to paste: \"type\": \"http\", the URL and the token header)", client, listen)
	default:
		fmt.Fprintf(&b, "  then add %s to the client as a Streamable HTTP server (mcp-bridge --print-config --client generic --listen %s prints the usual entry)", url, listen)
	}
	return UsageError{errors.New(b.String())}
}
