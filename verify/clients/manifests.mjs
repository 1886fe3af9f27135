// Checks the Scoop and winget manifests GoReleaser wrote into dist/ against
// the rules of their formats (manifest-rules.mjs), that each states the
// licence, and that the winget ones go to microsoft/winget-pkgs.
// Usage: node manifests.mjs path/to/dist LICENSE-ID [RELEASE-NOTES-FILE]
// With a notes file (a release run, not a snapshot), the winget manifest's
// ReleaseNotes must be that text.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { parse } from "yaml";
import * as rules from "./manifest-rules.mjs";

const [dist, license, notesFile] = process.argv.slice(2);
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
let failed = false;

function check(what, schema, doc, licenseOf) {
  const validate = ajv.compile(schema);
  if (!validate(doc)) {
    failed = true;
    console.error(`${what} does not match ${schema.$id}:`);
    for (const e of validate.errors) console.error(`  ${e.instancePath || "/"} ${e.message}`);
    return;
  }
  if (licenseOf(doc) !== license) {
    failed = true;
    console.error(`${what}: licence ${JSON.stringify(licenseOf(doc))}, want ${license}`);
    return;
  }
  console.log(`${what} matches ${schema.$id}`);
}

// Scoop: one JSON manifest.
check("scoop/mcp-bridge.json", rules.scoop,
  JSON.parse(readFileSync(join(dist, "scoop", "mcp-bridge.json"), "utf8")),
  (d) => (typeof d.license === "string" ? d.license : d.license?.identifier));

// winget: the multi-file manifest (version, installer, defaultLocale), each
// checked against the schema of its ManifestType and ManifestVersion.
const wingetDir = join(dist, "winget");
const files = readdirSync(wingetDir, { recursive: true }).filter((f) => f.endsWith(".yaml"));
const types = new Set();
for (const f of files) {
  const doc = parse(readFileSync(join(wingetDir, f), "utf8"));
  const schema = { version: rules.wingetVersion, installer: rules.wingetInstaller, defaultLocale: rules.wingetDefaultLocale }[doc.ManifestType];
  if (!schema || doc.ManifestVersion !== "1.12.0") {
    failed = true;
    console.error(`winget/${f}: a ${doc.ManifestType} manifest of version ${doc.ManifestVersion}; the rules here are for 1.12.0 version, installer and defaultLocale manifests (a newer GoReleaser? look the format up and update manifest-rules.mjs)`);
    continue;
  }
  types.add(doc.ManifestType);
  if (notesFile && doc.ManifestType === "defaultLocale") {
    const want = readFileSync(notesFile, "utf8").trim();
    if ((doc.ReleaseNotes ?? "").trim() !== want) {
      failed = true;
      console.error(`winget/${f}: ReleaseNotes are not the release notes given:\n${doc.ReleaseNotes}`);
    } else {
      console.log(`winget/${f}: ReleaseNotes are the release notes given (${want.length} characters)`);
    }
  }
  check(`winget/${f}`, schema, doc, (d) => (d.ManifestType === "defaultLocale" ? d.License : license));
}
for (const t of ["version", "installer", "defaultLocale"]) {
  if (!types.has(t)) {
    failed = true;
    console.error(`winget: no ${t} manifest in ${wingetDir}`);
  }
}
// Where the winget manifests go: a pull request to microsoft/winget-pkgs
// (GoReleaser's effective configuration, as it wrote it to dist/).
const pr = parse(readFileSync(join(dist, "config.yaml"), "utf8")).winget?.[0]?.repository?.pull_request;
if (!pr?.enabled || pr.base?.owner !== "microsoft" || pr.base?.name !== "winget-pkgs") {
  failed = true;
  console.error(`winget: the manifests are not sent as a pull request to microsoft/winget-pkgs: ${JSON.stringify(pr)}`);
} else {
  console.log(`winget: pull request to ${pr.base.owner}/${pr.base.name} (${pr.base.branch})`);
}
process.exit(failed ? 1 : 0);
