// Checks dist/server.json against the MCP Registry's published schema.
// Usage: node serverjson.mjs path/to/server.schema.json path/to/server.json
// The schema file comes from the registry's own Go module
// (github.com/modelcontextprotocol/registry, internal/validators/schemas),
// fetched by `go mod download`; ajv is the one the pinned SDK installs.
import { readFileSync } from "node:fs";
import Ajv from "ajv";
import addFormats from "ajv-formats";

const [schemaPath, docPath] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
const doc = JSON.parse(readFileSync(docPath, "utf8"));
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(schema);
if (!validate(doc)) {
  console.error(`server.json does not match ${schema.$id}:`);
  for (const e of validate.errors) console.error(`  ${e.instancePath || "/"} ${e.message}`);
  process.exit(1);
}
if (doc.$schema !== schema.$id) {
  console.error(`server.json names schema ${doc.$schema}, checked against ${schema.$id}`);
  process.exit(1);
}
console.log(`server.json matches ${schema.$id}`);
