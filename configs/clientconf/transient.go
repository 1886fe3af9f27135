package clientconf

import (
	"path/filepath"
	"strings"
)

// explorerZip is the folder Windows Explorer extracts a zip's file to when
// it is run from inside the zip: %TEMP%\Temp1_name.zip\.
// Compiled when first used, as the expansion patterns (lazyRegexp).
var explorerZip = lazyRegexp(`(?i)^Temp[0-9]+_.*\.zip$`)

// Transient says, for people, why the program at path will not stay
// where it is (a zip Explorer opened, the temporary folder, Downloads), or
// "" when nothing suggests so. A client registered with such a path stops
// starting the bridge when the folder is cleaned up.
func (e Env) Transient(path string) string {
	sep := "/"
	norm := func(p string) string { return filepath.ToSlash(p) }
	if e.OS == "windows" {
		sep = `\`
		norm = func(p string) string { return strings.ToLower(strings.ReplaceAll(p, "/", `\`)) }
	}
	for _, part := range strings.Split(strings.ReplaceAll(path, `\`, "/"), "/") {
		if explorerZip().MatchString(part) {
			return "a folder Windows Explorer made to run it from inside a zip; it is deleted when Explorer closes the zip"
		}
	}
	under := func(dir string) bool {
		if dir == "" {
			return false
		}
		d := strings.TrimSuffix(norm(dir), sep) + sep
		return strings.HasPrefix(norm(path), d)
	}
	temps := []string{e.Getenv("TEMP"), e.Getenv("TMP")}
	if e.OS != "windows" { // as os.TempDir
		temps = []string{e.Getenv("TMPDIR")}
		if temps[0] == "" {
			temps[0] = "/tmp"
		}
	}
	for _, t := range temps {
		if under(t) {
			return "the temporary folder " + t + ", which is cleaned up"
		}
	}
	if d := join(e.Home(), "Downloads"); under(d) {
		return "the Downloads folder " + d + ", which people clean up"
	}
	return ""
}
