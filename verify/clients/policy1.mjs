// TypeScript SDK 1.x (@modelcontextprotocol/sdk) against mcp-bridge with a
// policy: denied tools are neither listed nor callable, annotations arrive,
// and a call that needs confirmation is asked through elicitation/create,
// declined once and accepted once.
// Usage: node policy1.mjs <mcp-bridge binary> <base port> <policy file> <journal file>
//        node policy1.mjs <MCP URL of a bridge started with the policy>
import assert from 'node:assert/strict';
import { declineDelete } from './steps.mjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [bin, port, policy, journal] = process.argv.slice(2);
const client = new Client({ name: 'policy1-check', version: '1.0.0' }, { capabilities: { elicitation: {} } });
const asked = [];
let answer = 'decline';
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push(req.params.message);
  return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: answer };
});
const http = bin.startsWith('http');
const transport = http ? new StreamableHTTPClientTransport(new URL(bin)) : new StdioClientTransport({
  command: bin,
  args: ['--port', port, '--log-level', 'warn', '--no-cache', '--policy', policy, '--journal', journal],
  stderr: 'inherit',
});
const ok = (what) => console.log(`policy1${http ? ' http' : ''}: ok   ${what}`);
await client.connect(transport);

const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
assert.ok(!byName.save_drawing && !byName.new_drawing, 'denied tools are listed');
assert.equal(byName.delete_entities.annotations.destructiveHint, true);
assert.equal(byName.delete_entities.annotations.title, 'Delete entities');
assert.equal(byName.get_drawing_info.annotations.readOnlyHint, true);
ok(`tools/list: ${tools.length} tools, save_drawing and new_drawing absent, annotations merged`);

await assert.rejects(client.callTool({ name: 'save_drawing', arguments: {} }), (err) => {
  assert.equal(err.code, -32602);
  assert.match(err.message, /denied by the mcp-bridge policy/);
  return true;
});
ok('tools/call save_drawing: refused, naming the policy');

const drawn = await client.callTool({ name: 'draw_line', arguments: { start: { x: 0, y: 0 }, end: { x: 3, y: 4 } } });
const handle = drawn.content[0].text.split(' ')[1];

const declined = await declineDelete(client, asked, handle);
assert.match(asked[0], new RegExp(`handles: \\["${handle}"\\]`));
ok(`delete_entities, user declines: isError "${declined.content[0].text}"`);

answer = 'accept';
const deleted = await client.callTool({ name: 'delete_entities', arguments: { handles: [handle] } });
assert.equal(deleted.isError, false, JSON.stringify(deleted));
assert.equal(asked.length, 2);
ok(`delete_entities, user accepts: "${deleted.content[0].text}"`);

await client.close();
ok('closed');
