package clientconf

// A format is the syntax of a client's file: how install and uninstall
// edit the one entry they own, and how doctor reads every server, each
// keeping every byte install does not own (the other servers, the keys it
// does not know, comments, line ends).
type format interface {
	// set writes s as the entry name in src (nil: there is no file yet);
	// existed says whether the entry was there before.
	set(f File, src []byte, name string, s Server) (out []byte, existed bool, err error)
	// remove takes the entry name out of src; ok is false when it has
	// none.
	remove(f File, src []byte, name string) (out []byte, ok bool, err error)
	// servers reads every server in src: first the ones under f's key,
	// then, in a file that also keeps servers per project folder (Claude
	// Code's projects → DIR → mcpServers), those.
	servers(f File, src []byte) ([]entriesAt, error)
	// document is a whole file holding just this entry, as
	// --print-config prints it.
	document(c *Client, name string, s Server) (string, error)
}

// entriesAt are the servers under one key of a file, by name.
type entriesAt struct {
	where   []string // the key path, e.g. projects → /src/x → mcpServers
	entries map[string]Server
}

// The formats clients keep their servers in (configs/README.md says which
// client reads which, and the sources). Each is typed as itself, not as a
// format, so that the rows of Clients naming it stay constant data the
// compiler lays out (see Clients).
var (
	// strictJSON is read with JSON.parse: a file with a comment or a
	// trailing comma is refused, since the client cannot read it either.
	strictJSON = jsonFormat{}
	// jsoncFile is JSON with comments and trailing commas (VS Code's
	// dialect), which stay.
	jsoncFile = jsonFormat{comments: true}
	// tomlFile is Codex's config.toml, one [mcp_servers.NAME] table each.
	tomlFile = tomlFormat{}
	// yamlFile is Continue's and Goose's config.yaml.
	yamlFile = yamlFormat{}
)

// format is the syntax of c's file; strict JSON when the row names none.
func (c *Client) format() format {
	if c.Format == nil {
		return strictJSON
	}
	return c.Format
}

// entryIn is the entry name in the file src, as doctor reads it; ok is
// false when there is none, or it cannot be read (the editor then says why).
func entryIn(f File, src []byte, name string) (s Server, ok bool) {
	if src == nil {
		return Server{}, false
	}
	found, _ := f.Client.format().servers(f, src)
	if len(found) == 0 {
		return Server{}, false
	}
	s, ok = found[0].entries[name]
	return s, ok
}
