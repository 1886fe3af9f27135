// TypeScript SDK 1.x (@modelcontextprotocol/sdk) against mcp-bridge over
// Streamable HTTP: StreamableHTTPClientTransport, the legacy era (a session).
// Usage: node sdk1http.mjs <MCP URL>
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { drawLine, listTools, unknownTool } from './steps.mjs';

const [url] = process.argv.slice(2);
const client = new Client({ name: 'sdk1-http-check', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(url));
const ok = (what) => console.log(`sdk1 http: ok   ${what}`);

await client.connect(transport);
assert.ok(transport.sessionId, 'the bridge minted a session');
ok(`connected (legacy handshake, session ${transport.sessionId.slice(0, 6)}…) to ${client.getServerVersion().name}`);

await listTools(client, ok, ['draw_line'], { objectSchemas: true });

await drawLine(client, ok);

await unknownTool(client, ok);

assert.deepEqual(await client.ping(), {});
ok('ping');
await transport.terminateSession();
await client.close();
ok('session ended (DELETE) and closed');
