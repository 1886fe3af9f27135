// Package clienterr is the catalogue of the errors an MCP client can get
// from mcp-bridge (the bridge and connect): each one's JSON-RPC code, its
// data.kind and its message, in one place. docs/errors.md has the table of
// them, checked against All by a test.
package clienterr

import (
	"maps"

	"github.com/mcp-bridge/mcp-bridge/rpc"
)

// CodeHeaderMismatch is 2026-07-28's answer to Streamable HTTP headers that
// do not say what the body says.
const CodeHeaderMismatch = -32020

// Entry is one error a client can see.
type Entry struct {
	Name   string // its name in docs/errors.md
	Code   int64
	Kind   string // data.kind; "" when it carries none
	Format string // the message, a fmt format
}

// New is the error with its message made from args; data.kind when the
// entry has one.
func (e *Entry) New(args ...any) *rpc.WireError {
	w := rpc.Errorf(e.Code, e.Format, args...)
	if e.Kind != "" {
		w = w.WithData(map[string]string{"kind": e.Kind})
	}
	return w
}

// With is New with more members in data besides kind.
func (e *Entry) With(data map[string]string, args ...any) *rpc.WireError {
	d := maps.Clone(data)
	if e.Kind != "" {
		d["kind"] = e.Kind
	}
	return rpc.Errorf(e.Code, e.Format, args...).WithData(d)
}

// WithValues is With for data whose members are not all strings (a list,
// a number).
func (e *Entry) WithValues(data map[string]any, args ...any) *rpc.WireError {
	d := maps.Clone(data)
	if e.Kind != "" {
		d["kind"] = e.Kind
	}
	return rpc.Errorf(e.Code, e.Format, args...).WithData(d)
}

// WithStatus is New with the HTTP status of a remote's refusal in data
// (connect), as a number.
func (e *Entry) WithStatus(status int, args ...any) *rpc.WireError {
	return rpc.Errorf(e.Code, e.Format, args...).WithData(map[string]any{"kind": e.Kind, "status": status})
}

var all []*Entry

func entry(name string, code int64, kind, format string) *Entry {
	e := &Entry{Name: name, Code: code, Kind: kind, Format: format}
	all = append(all, e)
	return e
}

// All is every entry of the catalogue, in the order of docs/errors.md.
func All() []*Entry { return all }

// Messages that are not JSON-RPC requests, or that ask for what the bridge
// does not serve.
var (
	// ParseError and InvalidMessage are made by rpc's framing (whose
	// messages say which rule the message broke); listed here for the table.
	ParseError     = entry("parse_error", rpc.CodeParseError, "", "Parse error: the line is not valid JSON")
	InvalidMessage = entry("invalid_message", rpc.CodeInvalidRequest, "", "Invalid Request: %s")
	TooLong        = entry("message_too_long", rpc.CodeInvalidRequest, "", "Invalid Request: message of %d bytes exceeds the limit of %d bytes (--max-message)")
	IDInUse        = entry("id_in_use", rpc.CodeInvalidRequest, "", "Invalid Request: id %s is already in use by a request in progress")
	MethodNotFound = entry("method_not_found", rpc.CodeMethodNotFound, "", "Method not found: %s")
)

// The modern era's per-request rules and the params a method reads
// (lifecycle).
var (
	UnsupportedVersion = entry("unsupported_version", rpc.CodeUnsupportedVersion, "", "Unsupported protocol version %q: this server supports %v")
	NoCapabilities     = entry("no_capabilities", rpc.CodeInvalidParams, "", "Invalid params: _meta[%q] must be an object")
	NoVersion          = entry("no_version", rpc.CodeInvalidParams, "", "Invalid params: _meta[%q] must name the protocol version")
	InitializeParams   = entry("initialize_params", rpc.CodeInvalidParams, "", "Invalid params: initialize needs an object")
	NoToolName         = entry("no_tool_name", rpc.CodeInvalidParams, "", `Invalid params: tools/call needs "name", a string`)
	ParamsNotObject    = entry("params_not_object", rpc.CodeInvalidParams, "", "Invalid params: %s params must be an object")
	CursorNotString    = entry("cursor_not_string", rpc.CodeInvalidParams, "", `Invalid params: tools/list "cursor" must be a string`)
	ArgumentsNotObject = entry("arguments_not_object", rpc.CodeInvalidParams, "", `Invalid params: tools/call "arguments" must be an object`)
	ArgumentTwice      = entry("argument_twice", rpc.CodeInvalidParams, "", `Invalid params: tools/call "arguments" has %q twice; nothing was sent to CAD`)
	ArgumentCaseTwins  = entry("argument_case_twins", rpc.CodeInvalidParams, "", `Invalid params: tools/call "arguments" has both %q and %q, which a CAD base may take for one name (they differ only in case); nothing was sent to CAD`)
	MemberTwice        = entry("member_twice", rpc.CodeInvalidParams, "", "Invalid params: %s params has %q twice; nothing was sent to CAD")
	MemberCase         = entry("member_case", rpc.CodeInvalidParams, "", "Invalid params: %s params has %q, which is not %q (member names are case-sensitive); nothing was sent to CAD")
)

// The user's rules (policy, journal).
var (
	Denied     = entry("denied", rpc.CodeInvalidParams, "denied", "%s; nothing was sent to CAD")
	Unlisted   = entry("unlisted", rpc.CodeInvalidParams, "unlisted", "tool %q is not in the CAD base's tool list (names must match exactly), and the mcp-bridge policy (%s) runs only listed tools; nothing was sent to CAD")
	ListUnread = entry("list_unread", rpc.CodeInternalError, "", "%s was not sent to CAD: the mcp-bridge policy (%s) runs only tools the base lists, and its tool list could not be read. %s")
	Journal    = entry("journal", rpc.CodeInternalError, "journal", "the journal %s cannot be written (%v); with --journal-required nothing is sent to CAD until it can")
)

// The CAD base failed (failure.go says what a person reads for each).
var (
	BaseUnreachable = entry("unreachable", rpc.CodeInternalError, "unreachable", "%s")
	BaseTimeout     = entry("timeout", rpc.CodeInternalError, "timeout", "%s")
	BaseClosed      = entry("closed", rpc.CodeInternalError, "closed", "%s")
	BaseNotJSON     = entry("not_json", rpc.CodeInternalError, "malformed", "%s")
	BaseMalformed   = entry("malformed", rpc.CodeInternalError, "malformed", "CAD base at %s answered %s with something that is not a JSON-RPC response (%s); the call may have run.")
	BaseTooLarge    = entry("base_too_large", rpc.CodeInternalError, "too_large", "%s")
	BaseError       = entry("base_error", rpc.CodeInternalError, "error", "%s")
)

// The base was down and --launch started the CAD program, which failed
// (tcpbase/launch words what was started, how long it waited, how it
// ended, its last lines of output and when it tries again).
var (
	LaunchFailed  = entry("launch_failed", rpc.CodeInternalError, "launch_failed", "%s %s was not sent to CAD.")
	LaunchTimeout = entry("launch_timeout", rpc.CodeInternalError, "launch_timeout", "%s %s was not sent to CAD.")
	LaunchBackoff = entry("launch_backoff", rpc.CodeInternalError, "launch_backoff", "%s %s was not sent to CAD.")
)

// The answer does not fit, the bridge is busy or stopping, or a session
// ended.
var (
	AnswerTooLarge = entry("too_large", rpc.CodeInternalError, "too_large", "the answer to %s is %d bytes, longer than --max-message (%d bytes) allows; the call has run. Ask for less, or raise --max-message.")
	// TooLargeForClient: even reduced, the answer's message is over what
	// the client takes (--max-result-bytes, its table's): its envelope (a
	// long id) leaves no room for the smallest result with its note.
	TooLargeForClient = entry("too_large_for_client", rpc.CodeInternalError, "too_large", "the answer to %s does not fit in the %d bytes a message this client takes, even reduced: its id and envelope take %d of them; the call has run. Send a shorter id, or raise --max-result-bytes.")
	TooLargeInBatch   = entry("too_large_for_batch", rpc.CodeInternalError, "too_large_for_batch", "answer too large for a batch: %d bytes do not fit within --max-message (%d) beside the others; the request has run, send it alone")
	BatchOmitted      = entry("batch_omitted", rpc.CodeInternalError, "", "answer too large for a batch: %d answers of this batch were left out, even as errors, to keep it within --max-message (%d bytes); their requests may have run")
	QueueFull         = entry("queue_full", rpc.CodeInternalError, "", "too many requests queued (%d) waiting for the CAD base; %s was not sent, try again when earlier calls have finished")
	ShuttingDown      = entry("shutting_down", rpc.CodeInternalError, "", "mcp-bridge is shutting down; %s was not sent to CAD")
	StoppedWhileRun   = entry("shutdown", rpc.CodeInternalError, "shutdown", "mcp-bridge was stopped while CAD was working on %s; the call may still have run in CAD")
	SessionEnded      = entry("session_ended", rpc.CodeInternalError, "session_ended", "the session ended while CAD was working on %s; it may have run in CAD (check before sending it again)")
	SessionGone       = entry("session_gone", rpc.CodeInvalidRequest, "", "Invalid Request: the session ended; %s was not sent to CAD")
	Internal          = entry("internal", rpc.CodeInternalError, "", "internal error in mcp-bridge while %s %s (see its log)")
)

// The Streamable HTTP transport.
var (
	HTTPRefused    = entry("http_refused", rpc.CodeInvalidRequest, "", "%s")
	HeaderMismatch = entry("header_mismatch", CodeHeaderMismatch, "", "Header mismatch: %s")
	ModernBatch    = entry("modern_batch", rpc.CodeInvalidRequest, "", "Invalid Request: batches are not part of the 2026-07-28 transport")
	// ModernInBatch: one element of a handshake-era batch (stdio, or a
	// 2025-03-26 session) is a 2026-07-28 request.
	ModernInBatch  = entry("modern_in_batch", rpc.CodeInvalidRequest, "", "Invalid Request: a 2026-07-28 request cannot be part of a batch (2026-07-28 has none); send it on its own")
	TooManyStreams = entry("too_many_streams", rpc.CodeInternalError, "", "too many open streams (%d, half of them from one address; --max-streams); close one and try again")
)

// HeadersUnchecked: a 2026-07-28 HTTP call's Mcp-Param-* headers could not
// be checked, the base's tool list unread.
var HeadersUnchecked = entry("headers_unchecked", rpc.CodeInternalError, "", "%s was not sent to CAD: its Mcp-Param headers are checked against the x-mcp-header declarations in the base's tool list, and the list could not be read. %s")

// mcp-bridge connect, relaying to a remote bridge.
var (
	RemoteUnreachable = entry("remote_unreachable", rpc.CodeInternalError, "unreachable", "cannot reach the remote MCP server at %s: %s")
	SessionLost       = entry("session_lost", rpc.CodeInternalError, "session_lost", "%s")
	ConnectionLost    = entry("connection_lost", rpc.CodeInternalError, "connection_lost", "%s")
	RemoteRefused     = entry("refused", rpc.CodeInternalError, "refused", "the remote MCP server at %s refused the request: %s")
	RemoteTLS         = entry("tls", rpc.CodeInternalError, "tls", "the server at %s speaks HTTPS: use an https:// URL (with --fingerprint for a self-signed certificate)")
	Unauthorized      = entry("unauthorized", rpc.CodeInternalError, "unauthorized", "%s")
	ConnectTooLong    = entry("connect_message_too_long", rpc.CodeInvalidRequest, "", "Invalid Request: message over %d bytes")
	DesktopFailed     = entry("desktop_failed", rpc.CodeInternalError, "", "mcp-bridge connect could not show the question on its desktop: %v")
)
