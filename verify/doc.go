// Package verify drives the mcp-bridge binary as a child process, exactly as
// an MCP client does, over its stdin and stdout: the end-to-end checks users
// run against their own CAD base (`mcp-bridge verify`), and the demo.
package verify
