// checkpins.mjs DIR: checks that the clients the tests drive are the ones
// pinned. For every dependency in DIR/package.json (each an exact version),
// package-lock.json must lock that version and node_modules must hold it
// (the latter skipped with --lock-only, before anything is installed).
// What other packages the lockfile holds (optional packages for other
// platforms that a registry starts serving, say) does not matter here:
// registries move, and what the tests run is what must not.
// Exit 0 when every pin holds; 1 with one line per package that differs,
// naming the package and each version found.
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const lockOnly = args.includes("--lock-only");
const dir = args.find((a) => !a.startsWith("--")) ?? ".";

function readJSON(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    console.error(`pins: cannot read ${file}: ${err.message}`);
    process.exit(1);
  }
}

const pkg = readJSON(join(dir, "package.json"));
const lock = readJSON(join(dir, "package-lock.json"));
const pins = { ...(pkg.dependencies ?? {}), ...(pkg.devDependencies ?? {}) };
const problems = [];

for (const [name, pin] of Object.entries(pins)) {
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(pin)) {
    problems.push(`${name}: package.json asks for "${pin}", not one exact version`);
    continue;
  }
  const locked = lock.packages?.[`node_modules/${name}`]?.version;
  if (locked !== pin) {
    problems.push(`${name}: package.json pins ${pin}, package-lock.json locks ${locked ?? "nothing"}`);
  }
  if (lockOnly) continue;
  const manifest = join(dir, "node_modules", name, "package.json");
  const installed = existsSync(manifest) ? readJSON(manifest).version : undefined;
  if (installed !== pin) {
    problems.push(`${name}: package.json pins ${pin}, node_modules holds ${installed ?? "nothing"}`);
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(`pins: FAIL ${p}`);
  process.exit(1);
}
console.error(`pins: ok, ${Object.keys(pins).length} pinned packages ${lockOnly ? "locked" : "installed"} as pinned`);
