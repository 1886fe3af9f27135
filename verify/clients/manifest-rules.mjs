// The rules of the Scoop and winget (1.12.0) manifest formats that the
// manifests GoReleaser writes for us must keep, as JSON Schema, written here
// from the formats' documentation (Scoop's "App Manifests" wiki and
// schema.json; winget-cli's doc/ManifestSpecv1.12 and its schemas). The
// published schema files are not in any registry this project reaches, so
// these restate the parts that apply to a portable zip package: required
// fields, identifier, version, URL, hash and architecture forms, and the
// length limits. Unknown fields are refused (both formats refuse them too),
// so a field GoReleaser starts writing has to be looked up and added here.

const str = (max, extra = {}) => ({ type: "string", minLength: 1, maxLength: max, ...extra });
const url = str(2048, { pattern: "^https://[^\\s]+$" });
const sha256 = { type: "string", pattern: "^[A-Fa-f0-9]{64}$" };
// winget: ManifestSpecv1.12, "PackageIdentifier": 2–8 segments of up to 32
// characters, no whitespace or \ / : * ? " < > | or control characters.
const identifier = str(128, { pattern: '^[^.\\s\\\\/:*?"<>|\\x01-\\x1f]{1,32}(\\.[^.\\s\\\\/:*?"<>|\\x01-\\x1f]{1,32}){1,7}$' });
// winget: PackageVersion, up to 128 characters, none of \ / : * ? " < > |.
const version = str(128, { pattern: '^[^\\\\/:*?"<>|\\x01-\\x1f]+$' });
const locale = { type: "string", pattern: "^([a-zA-Z]{2,3}|[iI]-[a-zA-Z]+|[xX]-[a-zA-Z]{1,8})(-[a-zA-Z]{1,8})*$", maxLength: 20 };
const head = (type) => ({
  PackageIdentifier: identifier,
  PackageVersion: version,
  ManifestType: { const: type },
  ManifestVersion: { const: "1.12.0" },
});

export const wingetVersion = {
  $id: "mcp-bridge:winget-1.12.0-version",
  type: "object",
  additionalProperties: false,
  required: ["PackageIdentifier", "PackageVersion", "DefaultLocale", "ManifestType", "ManifestVersion"],
  properties: { ...head("version"), DefaultLocale: locale },
};

const installer = {
  type: "object",
  additionalProperties: false,
  required: ["Architecture", "InstallerUrl", "InstallerSha256"],
  properties: {
    Architecture: { enum: ["x86", "x64", "arm", "arm64", "neutral"] },
    InstallerUrl: url,
    InstallerSha256: sha256,
    NestedInstallerType: { enum: ["msix", "msi", "appx", "exe", "inno", "nullsoft", "wix", "burn", "portable"] },
    NestedInstallerFiles: {
      type: "array",
      minItems: 1,
      maxItems: 1024,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["RelativeFilePath"],
        properties: {
          RelativeFilePath: str(512, { pattern: "^[^:*?\"<>|]+$" }),
          PortableCommandAlias: str(40),
        },
      },
    },
    UpgradeBehavior: { enum: ["install", "uninstallPrevious", "deny"] },
  },
};

export const wingetInstaller = {
  $id: "mcp-bridge:winget-1.12.0-installer",
  type: "object",
  additionalProperties: false,
  required: ["PackageIdentifier", "PackageVersion", "Installers", "ManifestType", "ManifestVersion"],
  properties: {
    ...head("installer"),
    InstallerLocale: locale,
    InstallerType: { enum: ["msix", "msi", "appx", "exe", "zip", "inno", "nullsoft", "wix", "burn", "pwa", "portable"] },
    ReleaseDate: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
    Installers: { type: "array", minItems: 1, maxItems: 1024, items: installer },
  },
  // A zip installs what it nests: the type and the file must be named.
  if: { properties: { InstallerType: { const: "zip" } }, required: ["InstallerType"] },
  then: {
    properties: {
      Installers: { items: { required: ["Architecture", "InstallerUrl", "InstallerSha256", "NestedInstallerType", "NestedInstallerFiles"] } },
    },
  },
};

export const wingetDefaultLocale = {
  $id: "mcp-bridge:winget-1.12.0-defaultLocale",
  type: "object",
  additionalProperties: false,
  required: ["PackageIdentifier", "PackageVersion", "PackageLocale", "Publisher", "PackageName", "License", "ShortDescription", "ManifestType", "ManifestVersion"],
  properties: {
    ...head("defaultLocale"),
    PackageLocale: locale,
    Publisher: str(256, { minLength: 2 }),
    PublisherUrl: url,
    PackageName: str(256, { minLength: 2 }),
    PackageUrl: url,
    License: str(512, { minLength: 3 }),
    LicenseUrl: url,
    Copyright: str(512, { minLength: 3 }),
    ShortDescription: str(256, { minLength: 3 }),
    Description: str(10000, { minLength: 3 }),
    Moniker: str(40, { pattern: "^\\S+$" }),
    Tags: { type: "array", maxItems: 16, items: str(40, { pattern: "^\\S+$" }) },
    ReleaseNotes: str(10000),
    ReleaseNotesUrl: url,
  },
};

// Scoop: an app manifest with a download per architecture (64bit, arm64;
// 32bit too where built), each with its URL, SHA-256 and the binaries to shim.
const scoopArch = {
  type: "object",
  additionalProperties: false,
  required: ["url", "hash"],
  properties: { url, hash: sha256, bin: { type: "array", minItems: 1, items: str(512) } },
};
export const scoop = {
  $id: "mcp-bridge:scoop-app-manifest",
  type: "object",
  additionalProperties: false,
  required: ["version", "description", "homepage", "license"],
  properties: {
    version: { type: "string", pattern: "^[\\w.\\-+_]+$" },
    description: str(1000),
    homepage: url,
    license: {
      anyOf: [
        str(200),
        { type: "object", required: ["identifier"], properties: { identifier: str(200), url } },
      ],
    },
    architecture: {
      type: "object",
      additionalProperties: false,
      minProperties: 1,
      properties: { "64bit": scoopArch, "32bit": scoopArch, arm64: scoopArch },
    },
    url,
    hash: sha256,
    bin: { type: "array", items: str(512) },
    notes: { anyOf: [str(5000), { type: "array", items: { type: "string" } }] },
    persist: { anyOf: [str(512), { type: "array" }] },
  },
  anyOf: [{ required: ["architecture"] }, { required: ["url", "hash"] }],
};
