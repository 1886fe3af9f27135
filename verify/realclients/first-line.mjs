// first-line.mjs COMMAND [ARG…]: runs COMMAND (stdin empty), prints the
// first line it writes on stdout, then ends it and whatever it started
// (its process group). For CodeBuddy, whose only report of its MCP servers
// here is the first line of a headless session (system/init): left
// running, it would go on to its model. Exits 1, printing what COMMAND
// wrote on stderr, when it ends or 120 s pass without a line.
import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
let out = "";
let err = "";
let done = false;

const deadline = setTimeout(() => end(1, `${command}: no line within 120 s; its stderr:\n${err}`), 120_000);

// end prints text once, and ends the command's process group: SIGTERM,
// then SIGKILL if it is still there 10 s later (not waited for when it
// ends before).
function end(code, text) {
  if (done) return;
  done = true;
  clearTimeout(deadline);
  process.stdout.write(text);
  process.exitCode = code;
  kill("SIGTERM");
  setTimeout(() => kill("SIGKILL"), 10_000).unref();
  child.stdout.destroy();
  child.stderr.destroy();
}

function kill(signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone
  }
}

child.stdout.setEncoding("utf8").on("data", (d) => {
  out += d;
  const nl = out.indexOf("\n");
  if (nl >= 0) end(0, out.slice(0, nl + 1));
});
child.stderr.setEncoding("utf8").on("data", (d) => {
  err += d;
});
child.on("error", (e) => end(1, `${command}: ${e.message}\n`));
child.on("close", (code, signal) => end(1, `${command} ended (${signal ?? `exit ${code}`}) without a line; its stderr:\n${err}`));
