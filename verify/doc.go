// Package verify drives the mcp-bridge binary as a child process, exactly as
// an MCP client does, over its stdin and stdout. It holds the one driver for
// such a child (Bridge, Start), the check that stdout carries nothing but
// protocol messages (CheckStdout), and the request lines clients send.
//
// The jobs built on it live in sub-packages named after them:
//
//	verify/checks  the end-to-end checks users run against their base (`mcp-bridge verify`)
//	verify/bench   what the bridge costs against a direct call and a minimal relay (`mcp-bridge bench`)
//	verify/doctor  this installation: binary, base, client configurations (`mcp-bridge doctor`)
//	verify/direct  talking to the base without a bridge (`tools`, `call`, `request`)
//	verify/demo    the guided exchange (`mcp-bridge demo`)
//
// The tests of this package run the binary itself end to end: signals, load,
// progress heartbeats and the official Go SDK client.
package verify
