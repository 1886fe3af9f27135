// TypeScript SDK 2.x (@modelcontextprotocol/client) against mcp-bridge in
// 'auto' mode: it probes server/discover in a throw-away process, finds a
// modern server, and stays in the 2026-07-28 era.
// Usage: node sdk2.mjs <mcp-bridge binary> <base port>
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { drawCircle, listTools, unknownTool } from './steps.mjs';

const [bin, port] = process.argv.slice(2);
// E2E_ARGS (a JSON array) replaces the bridge's arguments: run.sh starts
// `mcp-bridge connect URL …` this way.
const bridgeArgs = process.env.E2E_ARGS ? JSON.parse(process.env.E2E_ARGS) : ['--port', port, '--log-level', 'warn', '--no-cache'];
const client = new Client({ name: 'sdk2-check', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
const transport = new StdioClientTransport({ command: bin, args: bridgeArgs, stderr: 'inherit' });
const ok = (what) => console.log(`sdk2: ok   ${what}`);

const started = Date.now();
await client.connect(transport);
assert.equal(client.getProtocolEra(), 'modern', 'auto mode should settle on the modern era');
assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
ok(`connected in ${Date.now() - started} ms (probe included): era ${client.getProtocolEra()}, version ${client.getNegotiatedProtocolVersion()}, server ${client.getServerVersion()?.name}`);

await listTools(client, ok, ['get_drawing_info', 'draw_circle']);

await drawCircle(client, ok);

await unknownTool(client, ok);

await client.close();
ok('closed');
