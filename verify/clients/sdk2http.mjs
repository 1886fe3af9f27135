// TypeScript SDK 2.x (@modelcontextprotocol/client) against mcp-bridge over
// Streamable HTTP, in one negotiation mode: auto (probes server/discover and
// settles on the modern era), legacy (initialize, a session) or modern
// (pinned to 2026-07-28, stateless).
// Usage: node sdk2http.mjs <MCP URL> auto|legacy|modern
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { drawCircle, listTools, unknownTool } from './steps.mjs';

const [url, mode] = process.argv.slice(2);
const negotiation = { auto: { mode: 'auto' }, legacy: { mode: 'legacy' }, modern: { mode: { pin: '2026-07-28' } } }[mode];
assert.ok(negotiation, `mode ${mode}: want auto, legacy or modern`);
const client = new Client({ name: `sdk2-http-${mode}`, version: '1.0.0' }, { versionNegotiation: negotiation });
const transport = new StreamableHTTPClientTransport(new URL(url));
const ok = (what) => console.log(`sdk2 http ${mode}: ok   ${what}`);

await client.connect(transport);
const era = mode === 'legacy' ? 'legacy' : 'modern';
assert.equal(client.getProtocolEra(), era);
ok(`connected: era ${client.getProtocolEra()}, version ${client.getNegotiatedProtocolVersion()}`);

await listTools(client, ok, ['draw_circle']);

await drawCircle(client, ok);

await unknownTool(client, ok);

await client.close();
ok('closed');
