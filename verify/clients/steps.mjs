// The steps the TypeScript SDK checks share, over stdio and Streamable HTTP
// alike: each takes a connected client (SDK 1.x or 2.x) and the check's ok
// printer.
import assert from 'node:assert/strict';

// listTools asserts that tools/list names every tool in names, and with
// objectSchemas that every tool has an object input schema.
export async function listTools(client, ok, names, { objectSchemas = false } = {}) {
  const { tools } = await client.listTools();
  const got = tools.map((t) => t.name);
  assert.ok(names.every((n) => got.includes(n)), `tools: ${got}`);
  if (objectSchemas) assert.ok(tools.every((t) => t.inputSchema?.type === 'object'), 'every tool has an object schema');
  ok(`tools/list: ${tools.length} tools`);
}

// drawLine calls draw_line from (0, 0) to (3, 4): a length-5 line.
export async function drawLine(client, ok) {
  const drawn = await client.callTool({ name: 'draw_line', arguments: { start: { x: 0, y: 0 }, end: { x: 3, y: 4 } } });
  assert.equal(drawn.isError, false);
  assert.match(drawn.content[0].text, /^Line \w+ drawn from \(0, 0\) to \(3, 4\), length 5\.$/);
  ok(`tools/call draw_line: ${drawn.content[0].text}`);
}

// drawCircle calls draw_circle at (1, 2) with radius 3.
export async function drawCircle(client, ok) {
  const drawn = await client.callTool({ name: 'draw_circle', arguments: { center: { x: 1, y: 2 }, radius: 3 } });
  assert.equal(drawn.isError, false);
  assert.match(drawn.content[0].text, /^Circle \w+ drawn at \(1, 2\), radius 3\.$/);
  ok(`tools/call draw_circle: ${drawn.content[0].text}`);
}

// unknownTool asserts that a call to a tool the base lacks is the base's
// -32602 Unknown tool error, passed through.
export async function unknownTool(client, ok) {
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (err) => {
    assert.equal(err.code, -32602);
    assert.match(err.message, /Unknown tool: no_such_tool/);
    return true;
  });
  ok('unknown tool: -32602 Unknown tool passed through');
}

// declineDelete calls delete_entities on handle while the user declines
// (asked collects the questions the client was shown): the answer is an
// isError result saying so, after one question that names the tool.
export async function declineDelete(client, asked, handle) {
  const declined = await client.callTool({ name: 'delete_entities', arguments: { handles: [handle] } });
  assert.equal(declined.isError, true);
  assert.match(declined.content[0].text, /you declined it/);
  assert.equal(asked.length, 1);
  assert.match(asked[0], /delete_entities/);
  return declined;
}
