// TypeScript SDK 1.x (@modelcontextprotocol/sdk) against mcp-bridge: the
// legacy era, as Claude Desktop-style clients speak it.
// Usage: node sdk1.mjs <mcp-bridge binary> <base port>
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [bin, port] = process.argv.slice(2);
const client = new Client({ name: 'sdk1-check', version: '1.0.0' });
const transport = new StdioClientTransport({ command: bin, args: ['--port', port, '--log-level', 'warn', '--no-cache'], stderr: 'inherit' });
const ok = (what) => console.log(`sdk1: ok   ${what}`);

await client.connect(transport);
ok(`connected (legacy handshake) to ${client.getServerVersion().name} ${client.getServerVersion().version}`);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
assert.ok(names.includes('get_drawing_info') && names.includes('draw_line'), `tools: ${names}`);
assert.ok(tools.every((t) => t.inputSchema?.type === 'object'), 'every tool has an object schema');
ok(`tools/list: ${tools.length} tools`);

const drawn = await client.callTool({ name: 'draw_line', arguments: { start: { x: 0, y: 0 }, end: { x: 3, y: 4 } } });
assert.equal(drawn.isError, false);
assert.match(drawn.content[0].text, /^Line \w+ drawn from \(0, 0\) to \(3, 4\), length 5\.$/);
ok(`tools/call draw_line: ${drawn.content[0].text}`);

const refused = await client.callTool({ name: 'draw_circle', arguments: { center: { x: 0, y: 0 }, radius: -1 } });
assert.equal(refused.isError, true);
ok('tools/call with bad arguments: isError result passed through');

await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (err) => {
  assert.equal(err.code, -32602);
  assert.match(err.message, /Unknown tool: no_such_tool/);
  return true;
});
ok('unknown tool: -32602 Unknown tool passed through');

assert.deepEqual(await client.ping(), {});
ok('ping');

await client.close();
ok('closed');
