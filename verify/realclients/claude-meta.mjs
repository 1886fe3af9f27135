// claude-meta.mjs SERVER CLAUDE: what Claude Code does with the tool
// metadata the bridge sends it (docs/limits.md), seen where it matters,
// in the requests it makes to its model. The model is a stand-in on
// loopback (ANTHROPIC_BASE_URL): its first answer calls
// mcp__SERVER__sim_listing for 100,000 bytes, its second says "ok"; each
// request Claude Code sends it is kept. Then:
//   - every tool of SERVER went to the model with its schema in the first
//     request (anthropic/alwaysLoad), none is left to the tool search;
//   - the listing came back to the model whole in the second request
//     (anthropic/maxResultSizeChars 500,000), not saved to a file with a
//     2 KB preview, which is what Claude Code does past 50,000 characters
//     without it.
// Run in the fixture home (run.sh's in_home) whose .claude.json registers
// SERVER, a bridge of a simulated base with --limit-tools (29 tools, and
// the bridge's wait_for_cad).
// Prints one line per finding; exits 1 on the first that fails.
import { spawn } from "node:child_process";
import http from "node:http";

const [server, claude] = process.argv.slice(2);
const prefix = `mcp__${server}__`;
const listing = 100_000;
const requests = [];

// The stand-in model: Anthropic's Messages API, streamed.
function events(res, blocks, stop) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send("message_start", { message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } });
  blocks.forEach(([start, delta], index) => {
    send("content_block_start", { index, content_block: start });
    send("content_block_delta", { index, delta });
    send("content_block_stop", { index });
  });
  send("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
  send("message_stop", {});
  res.end();
}

const toolResults = (req) => {
  const last = req.messages?.at(-1)?.content;
  return Array.isArray(last) ? last.filter((b) => b?.type === "tool_result") : [];
};

const api = http.createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8").on("data", (d) => (body += d)).on("end", () => {
    let msg = {};
    try {
      msg = JSON.parse(body);
    } catch {
      // not JSON: answered like any other
    }
    if (req.method !== "POST" || !req.url.startsWith("/v1/messages") || req.url.includes("count_tokens") || !msg.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url.includes("count_tokens") ? { input_tokens: 10 } : {}));
      return;
    }
    requests.push(msg);
    if (toolResults(msg).length === 0) {
      events(res, [[{ type: "tool_use", id: "toolu_1", name: `${prefix}sim_listing`, input: {} }, { type: "input_json_delta", partial_json: JSON.stringify({ bytes: listing }) }]], "tool_use");
    } else {
      events(res, [[{ type: "text", text: "" }, { type: "text_delta", text: "ok" }]], "end_turn");
    }
  });
});

function fail(text) {
  console.log(`claude-meta: FAIL ${text}`);
  process.exit(1);
}

api.listen(0, "127.0.0.1", () => {
  const env = { ...process.env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.address().port}`, ANTHROPIC_API_KEY: "sk-test-offline" };
  const child = spawn(claude, ["-p", "List the entities.", "--allowedTools", `${prefix}sim_listing`, "--output-format", "stream-json", "--verbose"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stdout.resume();
  child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
  const deadline = setTimeout(() => {
    child.kill("SIGKILL");
    fail(`claude -p did not end within 90 s; its stderr:\n${err}`);
  }, 90_000);
  child.on("exit", (code) => {
    clearTimeout(deadline);
    api.close();
    if (code !== 0) fail(`claude -p: exit ${code}\n${err}`);
    check();
  });
});

function check() {
  if (requests.length < 2) fail(`${requests.length} requests to the model, want the call and its result`);
  const first = requests[0];
  const upfront = (first.tools ?? []).filter((t) => t.name?.startsWith(prefix) && t.input_schema && !t.defer_loading).map((t) => t.name);
  const deferred = (JSON.stringify(first).match(new RegExp(`\\\\n${prefix}[a-z_]+`, "g")) ?? []).length;
  // The base's 29 and the bridge's wait_for_cad (Claude Code gets jobs).
  const want = 30;
  if (upfront.length !== want || !upfront.includes(`${prefix}wait_for_cad`) || deferred !== 0) fail(`the first request has ${upfront.length} of the ${want} tools (the base's 29 and wait_for_cad) with their schemas and names ${deferred} as deferred: anthropic/alwaysLoad not acted on`);
  console.log(`claude-meta: ok   all ${want} tools of ${server} (the base's 29 and wait_for_cad) loaded up front (anthropic/alwaysLoad), none deferred to the tool search`);
  const results = toolResults(requests[1]);
  const text = results.map((b) => (typeof b.content === "string" ? b.content : (b.content ?? []).map((c) => c.text ?? "").join(""))).join("");
  if (text.includes("<persisted-output>") || text.length < listing) fail(`the listing came back as ${text.length} characters (${JSON.stringify(text.slice(0, 120))}…): anthropic/maxResultSizeChars not acted on`);
  console.log(`claude-meta: ok   a ${listing.toLocaleString("en")}-character result reached the model whole (anthropic/maxResultSizeChars), not a file and a preview`);
}
