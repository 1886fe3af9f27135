package bench

import (
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// floorSource is the floor relay: the bench builds it wherever it runs,
// so that the floor is a program of its own (its own start-up, its own
// memory), not a mode of the binary being measured.
//
//go:embed floor/main.go floor/http.go
var floorSource embed.FS

// accountSource is rssaccount, which the bench builds the same way, so that
// what it links (debug/elf) stays out of the bridge.
//
//go:embed rssaccount/main.go
var accountSource []byte

// buildAccount builds rssaccount in dir and returns its path.
func buildAccount(goCmd, dir string) (string, error) {
	sub := filepath.Join(dir, "rssaccount")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		return "", err
	}
	src := filepath.Join(sub, "main.go")
	if err := os.WriteFile(src, accountSource, 0o600); err != nil {
		return "", err
	}
	return goBuild(goCommand(goCmd), sub, "rssaccount", []string{src})
}

func goCommand(goCmd string) string {
	if goCmd == "" {
		return "go"
	}
	return goCmd
}

// buildFloor builds the floor relay in dir with the flags `make build`
// gives the bridge: over stdio from main.go alone (so that it links no
// net/http), over HTTP with http.go too. It returns their paths.
func buildFloor(goCmd, dir string) (stdio, http string, err error) {
	goCmd = goCommand(goCmd)
	var srcs []string
	for _, name := range []string{"main.go", "http.go"} {
		b, err := floorSource.ReadFile("floor/" + name)
		if err != nil {
			return "", "", err
		}
		srcs = append(srcs, filepath.Join(dir, name))
		if err := os.WriteFile(srcs[len(srcs)-1], b, 0o600); err != nil {
			return "", "", err
		}
	}
	if stdio, err = goBuild(goCmd, dir, "floor", srcs[:1]); err != nil {
		return "", "", err
	}
	http, err = goBuild(goCmd, dir, "floor-http", srcs)
	return stdio, http, err
}

func goBuild(goCmd, dir, name string, srcs []string) (string, error) {
	bin := filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command(goCmd, append([]string{"build", "-trimpath", "-ldflags=-s -w", "-o", bin}, srcs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		if out := strings.TrimSpace(string(out)); out != "" {
			err = fmt.Errorf("%v: %s", err, out)
		}
		return "", fmt.Errorf("%s build of %s: %w", goCmd, name, err)
	}
	return bin, nil
}
