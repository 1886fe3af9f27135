// TypeScript SDK 2.x (@modelcontextprotocol/client) against mcp-bridge over
// Streamable HTTP, in one negotiation mode: auto (probes server/discover and
// settles on the modern era), legacy (initialize, a session) or modern
// (pinned to 2026-07-28, stateless).
// Usage: node sdk2http.mjs <MCP URL> auto|legacy|modern
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

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

const { tools } = await client.listTools();
assert.ok(tools.some((t) => t.name === 'draw_circle'), `tools: ${tools.map((t) => t.name)}`);
ok(`tools/list: ${tools.length} tools`);

const drawn = await client.callTool({ name: 'draw_circle', arguments: { center: { x: 1, y: 2 }, radius: 3 } });
assert.equal(drawn.isError, false);
assert.match(drawn.content[0].text, /^Circle \w+ drawn at \(1, 2\), radius 3\.$/);
ok(`tools/call draw_circle: ${drawn.content[0].text}`);

await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (err) => {
  assert.equal(err.code, -32602);
  assert.match(err.message, /Unknown tool: no_such_tool/);
  return true;
});
ok('unknown tool: -32602 Unknown tool passed through');

await client.close();
ok('closed');
