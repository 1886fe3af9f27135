// TypeScript SDK 1.x (@modelcontextprotocol/sdk) against mcp-bridge over
// Streamable HTTP: StreamableHTTPClientTransport, the legacy era (a session).
// Usage: node sdk1http.mjs <MCP URL>
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url] = process.argv.slice(2);
const client = new Client({ name: 'sdk1-http-check', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(url));
const ok = (what) => console.log(`sdk1 http: ok   ${what}`);

await client.connect(transport);
assert.ok(transport.sessionId, 'the bridge minted a session');
ok(`connected (legacy handshake, session ${transport.sessionId.slice(0, 6)}…) to ${client.getServerVersion().name}`);

const { tools } = await client.listTools();
assert.ok(tools.some((t) => t.name === 'draw_line'), `tools: ${tools.map((t) => t.name)}`);
assert.ok(tools.every((t) => t.inputSchema?.type === 'object'), 'every tool has an object schema');
ok(`tools/list: ${tools.length} tools`);

const drawn = await client.callTool({ name: 'draw_line', arguments: { start: { x: 0, y: 0 }, end: { x: 3, y: 4 } } });
assert.equal(drawn.isError, false);
assert.match(drawn.content[0].text, /length 5\.$/);
ok(`tools/call draw_line: ${drawn.content[0].text}`);

await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (err) => {
  assert.equal(err.code, -32602);
  assert.match(err.message, /Unknown tool: no_such_tool/);
  return true;
});
ok('unknown tool: -32602 Unknown tool passed through');

assert.deepEqual(await client.ping(), {});
ok('ping');
await transport.terminateSession();
await client.close();
ok('session ended (DELETE) and closed');
