// TypeScript SDK 1.x (@modelcontextprotocol/sdk) against mcp-bridge: the
// legacy era, as Claude Desktop-style clients speak it.
// Usage: node sdk1.mjs <mcp-bridge binary> <base port>
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { drawLine, listTools, unknownTool } from './steps.mjs';

const [bin, port] = process.argv.slice(2);
// E2E_ARGS (a JSON array) replaces the bridge's arguments: run.sh starts
// `mcp-bridge connect URL …` this way.
const bridgeArgs = process.env.E2E_ARGS ? JSON.parse(process.env.E2E_ARGS) : ['--port', port, '--log-level', 'warn', '--no-cache'];
const client = new Client({ name: 'sdk1-check', version: '1.0.0' });
const transport = new StdioClientTransport({ command: bin, args: bridgeArgs, stderr: 'inherit' });
const ok = (what) => console.log(`sdk1: ok   ${what}`);

await client.connect(transport);
ok(`connected (legacy handshake) to ${client.getServerVersion().name} ${client.getServerVersion().version}`);

await listTools(client, ok, ['get_drawing_info', 'draw_line'], { objectSchemas: true });

await drawLine(client, ok);

const refused = await client.callTool({ name: 'draw_circle', arguments: { center: { x: 0, y: 0 }, radius: -1 } });
assert.equal(refused.isError, true);
ok('tools/call with bad arguments: isError result passed through');

await unknownTool(client, ok);

assert.deepEqual(await client.ping(), {});
ok('ping');

await client.close();
ok('closed');
