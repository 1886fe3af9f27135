package clientfit

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports: clientfit sits under the core and imports only rpc, pflag
// and the image library besides the standard library (the layers table in
// the project's style guide).
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(path string) bool {
		first, _, _ := strings.Cut(path, "/")
		return !strings.Contains(first, ".") || // the standard library
			path == "github.com/mcp-bridge/mcp-bridge/rpc" ||
			path == "github.com/spf13/pflag" ||
			strings.HasPrefix(path, "golang.org/x/image/")
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !allowed(path) {
				t.Errorf("%s imports %s", file, path)
			}
		}
	}
}
