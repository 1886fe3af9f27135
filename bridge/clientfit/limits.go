package clientfit

import "time"

// Limits are what one client takes from the bridge. The zero value is no
// limit at all: what a client the table does not know gets.
type Limits struct {
	// For names the client in the notes a reduced result carries
	// ("Claude Desktop"); "" reads "this client".
	For string

	// AnswerWithin is how long the client waits for the answer to a
	// tools/call before it gives up on it (Claude Desktop) or sets it
	// aside (Claude Code). JobAfter says when the bridge answers a call
	// still running. 0: it waits as long as the call takes.
	AnswerWithin time.Duration

	// MaxResultBytes is the largest tools/call result the client takes, in
	// bytes of the result object's JSON as written. 0: no limit.
	MaxResultBytes int

	// Envelope is how many bytes of the message around the result (the
	// JSON-RPC envelope and its id) count against MaxResultBytes: the
	// client's limit is on the message it reads. The core sets it for
	// each answer; the notes still name MaxResultBytes.
	Envelope int

	// MaxImageSide is the largest width or height, in pixels, of one
	// picture; MaxImageBytes the largest picture as it travels, in bytes
	// of its base64 data. 0: no limit.
	MaxImageSide, MaxImageBytes int

	// ReadsAlwaysLoad: the client keeps a tool whose _meta says
	// "anthropic/alwaysLoad": true loaded from the first prompt instead of
	// deferring it behind a tool search.
	ReadsAlwaysLoad bool

	// DefaultResultChars: the client sets a text result over this many
	// characters aside (Claude Code saves it to a file and shows the model
	// a preview) unless the tool's _meta says
	// "anthropic/maxResultSizeChars", whose largest honoured value is
	// MaxResultSizeChars. 0: the client reads no such key.
	DefaultResultChars, MaxResultSizeChars int
}

// None reports whether l limits nothing Fit acts on: a result for such a
// client is never looked at.
func (l Limits) None() bool {
	return l.MaxResultBytes <= 0 && l.MaxImageSide <= 0 && l.MaxImageBytes <= 0
}

// JobAfter is how long a tools/call may run before the bridge answers the
// client with a job instead of its result: AnswerWithin less a margin for
// the answer's way back and the client's own clock (a tenth of it, at most
// 15 s: 3m45s for Claude Desktop's 4 minutes, 1m48s for Claude Code's 2,
// 1.8 s for --answer-within 2s). 0 when the client waits as long as it
// takes.
func (l Limits) JobAfter() time.Duration {
	if l.AnswerWithin <= 0 {
		return 0
	}
	return l.AnswerWithin - min(l.AnswerWithin/10, 15*time.Second)
}

// Client is one row of the table: a client as it names itself in
// clientInfo, and its limits.
type Client struct {
	// Name is clientInfo.name exactly as the client sends it.
	Name string
	// Product is what its users call it.
	Product string
	Limits  Limits
}

// The Claude API's limits on a picture, which apply to every client that
// sends tool results to it (platform.claude.com/docs/en/build-with-claude/vision):
// a request with more than 20 pictures refuses one over 2000 px a side
// ("At least one of the image dimensions exceed max allowed size for
// many-image requests: 2000 pixels", trycua/cua#884), and any picture over
// 5 MiB of base64 ("image exceeds 5 MB maximum: 6647864 bytes > 5242880
// bytes", joshuayoes/ios-simulator-mcp#32, for a 4.8 MB PNG: the limit is
// on the base64). A drawing session collects views, so the many-picture
// side is the one that holds.
const (
	apiImageSide  = 2000
	apiImageBytes = 5 << 20
)

// clients is the table. Names are matched exactly, case and all: they are
// identifiers each client's code sets, not text a person types, and a name
// that only looks like one of these is another program. The version is not
// part of the key: no limit found differs by version (Claude Desktop sends
// "0.1.0" whatever its release; Claude Code versions before 2.1.108 ignore
// anthropic/maxResultSizeChars, which is harmless to send them). Each
// value's public source is in docs/limits.md, whose table a test holds to
// this one.
var clients = []Client{
	// Claude Desktop (and claude.ai's connectors, which name themselves the
	// same). It ends a tool call at 4 minutes ("No result received from
	// the Claude Desktop app after waiting 4 minutes", anthropics/claude-code
	// #65643, #66726, "exactly 4 minutes" #44032) and refuses a result
	// over 1 MiB ("Tool result is too large. Maximum size is 1MB",
	// CursorTouch/Windows-MCP#155; "result exceeds maximum length of
	// 1048576", mobile-next/mobile-mcp#169). Its code agent drops tools'
	// _meta (anthropics/claude-code#78478).
	{Name: "claude-ai", Product: "Claude Desktop", Limits: Limits{For: "Claude Desktop",
		AnswerWithin: 4 * time.Minute, MaxResultBytes: 1 << 20,
		MaxImageSide: apiImageSide, MaxImageBytes: apiImageBytes}},
	// Claude Code moves a call that runs past 120 s into a background task
	// (tengu_mcp_auto_background, 120000 ms; anthropics/claude-code#78566,
	// #86464: its progress is then dropped and its result can be lost);
	// CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS changes it on the user's side
	// (#78407), which the bridge cannot see. It takes results of any size
	// (over 50,000 characters they go to a file and the model sees a
	// preview; a tool's anthropic/maxResultSizeChars raises that up to
	// 500,000: code.claude.com/docs/en/mcp, anthropics/claude-code#42869),
	// and keeps a tool loaded whose _meta says anthropic/alwaysLoad
	// (colbymchenry/codegraph#1696, #1697). Its pictures go to the Claude API.
	{Name: "claude-code", Product: "Claude Code", Limits: Limits{For: "Claude Code",
		AnswerWithin: 2 * time.Minute,
		MaxImageSide: apiImageSide, MaxImageBytes: apiImageBytes,
		ReadsAlwaysLoad: true, DefaultResultChars: 50_000, MaxResultSizeChars: 500_000}},
	// Known names with no limit known: they get the base's answer as it is.
	{Name: "cursor-vscode", Product: "Cursor"},
	{Name: "Visual Studio Code", Product: "VS Code"},
	{Name: "Visual Studio Code - Insiders", Product: "VS Code Insiders"},
	{Name: "gemini-cli-mcp-client", Product: "Gemini CLI"},
	{Name: "codex-mcp-client", Product: "Codex"},
	{Name: "inspector-client", Product: "MCP Inspector"},
}

// Lookup returns the table's row for a client's clientInfo.name; ok is
// false for a client the table does not know, whose Limits are zero.
func Lookup(name string) (c Client, ok bool) {
	for _, c := range clients {
		if c.Name == name {
			return c, true
		}
	}
	return Client{}, false
}

// Clients is the table, a copy, for doctor and the docs' test.
func Clients() []Client { return append([]Client(nil), clients...) }
