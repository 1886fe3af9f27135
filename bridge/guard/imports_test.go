package guard

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports: the gate and every package under it import down only: the
// protocol (lifecycle, rpc), the small helpers of configs, each other,
// and their libraries (zerolog, pflag, x/sys); never the core (bridge) that calls the gate,
// nor telemetry, nor the front ends (the layers table in the project's
// style guide). Direct imports are enough: what they may import has its
// own rule.
func TestImports(t *testing.T) {
	const mod = "github.com/mcp-bridge/mcp-bridge/"
	allowed := func(path string) bool {
		first, _, _ := strings.Cut(path, "/")
		switch {
		case !strings.Contains(first, "."): // the standard library
			return true
		case path == mod+"bridge/guard" || strings.HasPrefix(path, mod+"bridge/guard/"),
			path == mod+"rpc", path == mod+"lifecycle" || strings.HasPrefix(path, mod+"lifecycle/"),
			strings.HasPrefix(path, mod+"configs/"):
			return true
		}
		return path == "github.com/rs/zerolog" || path == "github.com/spf13/pflag" || strings.HasPrefix(path, "golang.org/x/sys/")
	}
	files := 0
	err := filepath.WalkDir(".", func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(file, ".go") || strings.HasSuffix(file, "_test.go") {
			return err
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); !allowed(path) {
				t.Errorf("%s imports %s", file, path)
			}
		}
		return nil
	})
	if err != nil || files < 10 {
		t.Fatalf("read %d files: %v", files, err)
	}
}
