// Package connect is `mcp-bridge connect URL`: a stdio MCP server that
// relays each message to a remote Streamable HTTP MCP server (an
// mcp-bridge serving --listen, or any other), for clients that start only
// local programs.
//
// One reader takes stdin lines in order; each message is sent on by a
// goroutine of its own, in arrival order (a message starts on the wire
// only after the one before it was written), so that a ping is answered
// while a long call runs. Answers, progress, questions and the session's
// GET stream come back through the one serialized stdout writer.
//
// The rules it keeps:
//   - era per message: a request whose params._meta names a protocol
//     version goes out stateless (2026-07-28 headers); everything else
//     travels in the handshake-era session (Mcp-Session-Id).
//   - a 404 to a message that carried Mcp-Session-Id means the remote
//     refused before running anything: the client's recorded handshake is
//     replayed to open a new session and the message is sent once more.
//   - a request that may have reached the remote (the connection broke
//     after it was written, a 5xx, a broken stream) is never sent twice:
//     it ends with -32603 saying so; so does one answered with anything
//     but its answer, and one whose remote stays silent for AnswerIdle
//     (a remote mcp-bridge sends keep-alives while a call runs).
//   - a remote that cannot be reached gets -32603 naming the URL; ping is
//     then answered here (also when the remote takes the connection but
//     does not answer it within PingTimeout), and a probe with backoff
//     notices the remote's return (notifications/tools/list_changed to a
//     handshake-era client).
//   - a call the remote wants confirmed, from a client that cannot ask, is
//     asked on connect's own desktop (Config.Desktop, ask.go): connect
//     declares elicitation for the client, shows the tool and arguments of
//     the call it relayed, and answers the remote (or re-sends a
//     2026-07-28 call with the answer); a question it cannot tie to one
//     call, or that is not the one confirm box, is declined.
//   - at exit the session is ended with DELETE.
package connect
