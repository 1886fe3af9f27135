// TypeScript SDK 2.x (@modelcontextprotocol/client) against mcp-bridge in
// 'auto' mode: it probes server/discover in a throw-away process, finds a
// modern server, and stays in the 2026-07-28 era.
// Usage: node sdk2.mjs <mcp-bridge binary> <base port>
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [bin, port] = process.argv.slice(2);
const client = new Client({ name: 'sdk2-check', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
const transport = new StdioClientTransport({ command: bin, args: ['--port', port, '--log-level', 'warn', '--no-cache'], stderr: 'inherit' });
const ok = (what) => console.log(`sdk2: ok   ${what}`);

const started = Date.now();
await client.connect(transport);
assert.equal(client.getProtocolEra(), 'modern', 'auto mode should settle on the modern era');
assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
ok(`connected in ${Date.now() - started} ms (probe included): era ${client.getProtocolEra()}, version ${client.getNegotiatedProtocolVersion()}, server ${client.getServerVersion()?.name}`);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
assert.ok(names.includes('get_drawing_info') && names.includes('draw_circle'), `tools: ${names}`);
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
