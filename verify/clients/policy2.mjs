// TypeScript SDK 2.x (@modelcontextprotocol/client) in the 2026-07-28 era
// against mcp-bridge with a policy: a call that needs confirmation comes
// back input_required; the SDK asks through its elicitation handler and
// re-sends the call with inputResponses and the bridge's requestState.
// Usage: node policy2.mjs <mcp-bridge binary> <base port> <policy file>
//        node policy2.mjs <MCP URL of a bridge started with the policy>
import assert from 'node:assert/strict';
import { declineDelete } from './steps.mjs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [bin, port, policy] = process.argv.slice(2);
const client = new Client({ name: 'policy2-check', version: '1.0.0' },
  { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } });
const asked = [];
let answer = 'decline';
client.setRequestHandler('elicitation/create', async (req) => {
  asked.push(req.params.message);
  return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: answer };
});
const http = bin.startsWith('http');
const transport = http ? new StreamableHTTPClientTransport(new URL(bin)) : new StdioClientTransport({
  command: bin, args: ['--port', port, '--log-level', 'warn', '--no-cache', '--policy', policy], stderr: 'inherit',
});
const ok = (what) => console.log(`policy2${http ? ' http' : ''}: ok   ${what}`);
await client.connect(transport);
assert.equal(client.getProtocolEra(), 'modern');

const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
assert.ok(!byName.save_drawing && !byName.new_drawing, 'denied tools are listed');
assert.equal(byName.delete_entities.annotations.destructiveHint, true);
assert.equal(byName.delete_entities.annotations.title, 'Delete entities');
ok(`tools/list (2026-07-28): ${tools.length} tools, annotations merged`);

const drawn = await client.callTool({ name: 'draw_circle', arguments: { center: { x: 1, y: 2 }, radius: 3 } });
const handle = drawn.content[0].text.split(' ')[1];

const declined = await declineDelete(client, asked, handle);
ok(`delete_entities through input_required, user declines: isError "${declined.content[0].text}"`);

answer = 'accept';
const deleted = await client.callTool({ name: 'delete_entities', arguments: { handles: [handle] } });
assert.equal(deleted.isError, false, JSON.stringify(deleted));
assert.equal(asked.length, 2);
ok(`delete_entities through input_required, user accepts: "${deleted.content[0].text}"`);

await client.close();
ok('closed');
