// Package toolschema looks at the tool schemas a CAD base publishes in its
// tools/list result: RepairToolSchemas adds the one missing word that makes
// SDK clients drop a tool, and LintTools lists what else makes tools fail or
// vanish in real clients (mcp-bridge doctor prints it).
package toolschema
