package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
	"github.com/mcp-bridge/mcp-bridge/verify"
)

// checkRemote checks a `connect` registration end to end, as its client
// would run it: the registered command with its args and env, a handshake
// and tools/list through the remote bridge (TLS, token and fingerprint
// included). The tool count, or the remote's refusal in connect's words,
// goes into e.
func checkRemote(ctx context.Context, s clientconf.Server, url string, timeout time.Duration, e *ConfigEntry) {
	e.Base, e.BaseFrom = url, "mcp-bridge connect"
	var env []string
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	b, err := verify.Start(s.Command, s.Args, verify.Options{Env: env})
	if err != nil {
		e.Problem = "starting it: " + err.Error()
		return
	}
	defer b.Close()
	start := time.Now()
	ask := func(line string) (map[string]json.RawMessage, error) {
		if err := b.Send(line); err != nil {
			return nil, err
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < timeout {
			timeout = time.Until(deadline)
		}
		ans, err := b.Recv(timeout)
		if err != nil {
			return nil, fmt.Errorf("no answer through the remote within %s", timeout)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(ans), &m) != nil {
			return nil, fmt.Errorf("connect answered %.200s", ans)
		}
		if raw, ok := m["error"]; ok {
			var we struct{ Message string }
			_ = json.Unmarshal(raw, &we)
			return nil, fmt.Errorf("%s", we.Message)
		}
		return m, nil
	}
	if _, err := ask(verify.Initialize("1", "2025-06-18")); err != nil {
		e.BaseError, e.Problem = err.Error(), "through "+url+": "+err.Error()
		return
	}
	_ = b.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	m, err := ask(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err != nil {
		e.BaseError, e.Problem = err.Error(), "through "+url+": "+err.Error()
		return
	}
	var list struct{ Tools []json.RawMessage }
	_ = json.Unmarshal(m["result"], &list)
	e.BaseOK, e.BaseTools, e.BaseLatency = Passed, len(list.Tools), float64(time.Since(start).Microseconds())/1000
}

// checkURLEntry checks an entry in a client's own URL form (install
// --url): the URL answers a handshake and tools/list, with the token from
// CAD_MCP_TOKEN when the entry sends it and doctor can read it. The check
// runs through this executable's connect, which speaks to the URL as the
// client does: to the URL and with the Authorization header as the
// client fills them in (clientconf.Client.Expand), from doctor's
// environment. A URL the client sends otherwise than written is a
// warning; one it fills in from what doctor cannot know (a file, a value
// of the client's own) is not contacted.
func checkURLEntry(ctx context.Context, o Options, timeout time.Duration, r clientconf.Registration, e *ConfigEntry) {
	e.URL, e.Command = r.Server.URL, ""
	if err := clientconf.CheckName(r.Name); err != nil {
		e.Problem = err.Error()
		return
	}
	if o.Reach == nil || o.Executable == "" {
		return
	}
	client := clientconf.Lookup(r.ClientID)
	if client == nil {
		client = &clientconf.Client{Name: r.Client}
	}
	url, refs := client.Expand(r.Server.URL, o.Getenv)
	var filled, unknown []string
	for _, ref := range refs {
		if ref.Known {
			filled = append(filled, ref.Text)
		} else {
			unknown = append(unknown, ref.Text)
		}
	}
	if len(unknown) > 0 {
		e.Problem = fmt.Sprintf("%s fills %s in in this URL from a file or a value of its own, so doctor cannot tell the URL it sends: not contacted. Write the URL out in full", r.Client, strings.Join(unknown, ", "))
		return
	}
	if url != r.Server.URL {
		// The values are the environment's (a secret, as often as not):
		// sending them on from doctor's own environment, or printing the
		// URL in an error, would spread them further than the client does.
		e.Problem = fmt.Sprintf("%s sends another URL than the one written: it fills in %s from its environment, so the URL carries those values to the host. Not contacted; write the URL out in full (install refuses such a URL)", r.Client, strings.Join(filled, ", "))
		return
	}
	s := clientconf.Server{Command: o.Executable, Args: []string{"connect", url}, Env: map[string]string{}}
	usesToken := r.Server.TokenFromVar()
	token := ""
	if o.Getenv != nil {
		token = o.Getenv(clientconf.TokenVar)
	}
	// The header as the client sends it: a reference in another client's
	// syntax goes out as written.
	auth, hasAuth := r.Server.Headers["Authorization"]
	notFilled := false
	if hasAuth && usesToken && token != "" {
		sent, hrefs := client.Expand(auth, o.Getenv)
		token, notFilled = strings.TrimPrefix(sent, "Bearer "), len(hrefs) == 0
	}
	if !usesToken {
		token = "" // the client sends none
	}
	s.Env[clientconf.TokenVar] = token
	// The client has only what the entry says: connect's settings in
	// doctor's environment (a token file, a pin, a CA) would check
	// another connection than the client's, and send a token it does not.
	for _, k := range []string{"CAD_MCP_TOKEN_FILE", "CAD_MCP_FINGERPRINT", "CAD_MCP_CA"} {
		s.Env[k] = ""
	}
	checkRemote(ctx, s, r.Server.URL, timeout, e)
	e.BaseFrom = "its URL entry"
	switch {
	case !usesToken:
		e.TokenFrom = "no token"
	case token == "":
		e.TokenFrom = clientconf.TokenVar + ", which is not set here"
	default:
		e.TokenFrom = clientconf.TokenVar + " of this environment"
	}
	switch {
	case e.Problem == "":
	case notFilled:
		e.Problem += fmt.Sprintf("; %s sends the Authorization header as written, %q: it does not fill in that reference (its own is %q)", r.Client, auth, "Bearer "+clientRef(client))
	case usesToken && token == "":
		e.Problem += fmt.Sprintf("; %s sends the token from %s, which is not set here: set it to the token where %s starts, and here for doctor to check with it", r.Client, clientconf.TokenVar, r.Client)
	}
}

// clientRef is how the client's URL entry names the token variable.
func clientRef(c *clientconf.Client) string {
	if c.URLForm == nil || c.URLForm.VarRef == "" {
		return clientconf.TokenVar
	}
	return c.TokenRef()
}
