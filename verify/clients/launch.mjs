// A real client (TypeScript SDK 1.x) while CAD is not running: the bridge
// it starts has --launch, so its first tools/call draw_line starts CAD,
// waits for its base and is answered (progress on the way); a second call
// reads the line back; the client closes (killing the bridge), and CAD
// runs on: its base still answers. Prints how long the first call took.
// Usage: node launch.mjs LABEL BASE_PORT MCP_BRIDGE [BRIDGE ARGS…]
import assert from 'node:assert/strict';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [label, port, bin, ...args] = process.argv.slice(2);
const ok = (what) => console.log(`launch: ok   ${label}: ${what}`);

// answers: whether a tools/list sent straight to the base is answered.
function answers() {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port: Number(port) });
    let data = '';
    s.setTimeout(10000, () => { s.destroy(); resolve(false); });
    s.on('error', () => resolve(false));
    s.on('data', (d) => { data += d; });
    s.on('connect', () => s.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'));
    s.on('close', () => resolve(data.includes('"draw_line"')));
  });
}

assert.equal(await answers(), false, `something already answers on port ${port}: CAD must not be running`);
ok(`nothing answers on port ${port}`);

const client = new Client({ name: 'launch-check', version: '1.0.0' });
// The whole environment: DISPLAY, HOME and CAD_MCP_FREECAD_PORT reach the
// bridge, and through it FreeCAD.
const transport = new StdioClientTransport({ command: bin, args, env: { ...process.env }, stderr: 'inherit' });
await client.connect(transport);
const bridgePid = transport.pid;

const progress = [];
const t0 = performance.now();
const drawn = await client.callTool(
  { name: 'draw_line', arguments: { start: { x: 0, y: 0 }, end: { x: 30, y: 40 } } },
  undefined,
  { onprogress: (p) => progress.push(p.message), resetTimeoutOnProgress: true, timeout: 120000, maxTotalTimeout: 600000 },
);
const took = (performance.now() - t0) / 1000;
assert.equal(drawn.isError, false, JSON.stringify(drawn));
const m = drawn.content[0].text.match(/^Line (\w+) drawn from \(0, 0\) to \(30, 40\), length 50\.$/);
assert.ok(m, drawn.content[0].text);
assert.ok(progress.some((p) => /^starting FreeCAD…$/.test(p)), `progress: ${JSON.stringify(progress)}`);
ok(`tools/call draw_line answered in ${took.toFixed(1)} s from the call, FreeCAD started by the bridge: ${drawn.content[0].text}`);
ok(`progress on the way: ${progress.map((p) => JSON.stringify(p)).join(', ')}`);
console.log(`launch: time from the call to its answer (${label}): ${took.toFixed(1)} s`);

const got = await client.callTool({ name: 'get_entity', arguments: { handle: m[1] } });
assert.equal(got.isError, false, JSON.stringify(got));
const entity = JSON.parse(got.content[0].text);
assert.ok(JSON.stringify(entity).includes('30') && JSON.stringify(entity).includes('40'), got.content[0].text);
ok(`read back with get_entity ${m[1]}: ${got.content[0].text}`);

await client.close();
// The client ended the bridge; wait until its process is gone.
for (let i = 0; i < 300; i++) {
  try { process.kill(bridgePid, 0); } catch { break; }
  await new Promise((r) => setTimeout(r, 100));
}
assert.throws(() => process.kill(bridgePid, 0), 'the bridge did not exit');
assert.equal(await answers(), true, 'FreeCAD stopped with the bridge');
ok('the bridge exited; FreeCAD runs on, its base still answers');
