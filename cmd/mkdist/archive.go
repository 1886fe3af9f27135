package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// archiveFile is one entry of a release archive's file list: the files
// src matches (a glob, from the repository's root), put in the folder dst
// of the archive under their own names (GoReleaser's strip_parent).
type archiveFile struct{ src, dst string }

// archiveFiles is what a release archive holds beside the binary, in one
// list: `mkdist archive` packs it, and .goreleaser.yaml's archives.files
// must say the same (TestGoReleaserPacksTheSameFiles; make dist compares
// the two archives). The FreeCAD base goes in freecad/, beside the
// binary, where `launch-command --cad freecad` looks for it.
var archiveFiles = []archiveFile{
	{"LICENSE", ""},
	{"CHANGELOG.md", ""},
	{"README.md", ""},
	{"docs/*.md", "docs"},
	{"configs/README.md", "configs"},
	{"configs/*.json", "configs"},
	{"configs/codex.toml", "configs"},
	{"configs/policy.example.jsonc", "configs"},
	{"tcpbase/freecad/MCPBridgeBase.FCMacro", "freecad"},
	{"tcpbase/freecad/cadbase/*.py", "freecad/cadbase"},
	{"tcpbase/freecad/cadbase/tools.json", "freecad/cadbase"},
}

// archiveName is a release archive's name, GoReleaser's name_template.
func archiveName(version, goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("mcp-bridge_%s_%s_%s%s", version, goos, goarch, ext)
}

// entry is one file of an archive: its name there, where it is read from,
// and its mode.
type entry struct {
	name, from string
	mode       os.FileMode
}

// archiveEntries lists the archive's files from the repository at root:
// the binary first, then archiveFiles in their order (each glob's matches
// sorted). A glob that matches nothing is an error: the list is out of
// date.
func archiveEntries(root, binary, goos string) ([]entry, error) {
	exe := "mcp-bridge"
	if goos == "windows" {
		exe += ".exe"
	}
	out := []entry{{exe, binary, 0o755}}
	for _, f := range archiveFiles {
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(f.src)))
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s matches no file of %s", f.src, root)
		}
		slices.Sort(matches)
		for _, m := range matches {
			out = append(out, entry{path.Join(f.dst, filepath.Base(m)), m, 0o644})
		}
	}
	return out, nil
}

// runArchive is `mkdist archive`: the release archive of one platform from
// a binary already built, with the layout make dist's archives have, in
// seconds (make archive; the first-hour test starts from it).
func runArchive(args []string) error {
	fs := pflag.NewFlagSet("mkdist archive", pflag.ContinueOnError)
	binary := fs.String("binary", "", "the built mcp-bridge (or mcp-bridge.exe) for --os and --arch")
	goos := fs.String("os", "", "the platform's GOOS: windows gets a .zip, the others a .tar.gz")
	goarch := fs.String("arch", "", "the platform's GOARCH")
	version := fs.String("version", "", "the version in the archive's name")
	out := fs.String("out", "bin", "the folder the archive is written to")
	root := fs.String("root", ".", "the repository's root")
	mtime := fs.Int64("mtime", 0, "every entry's time, in seconds since 1970 (default: now)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *binary == "" || *goos == "" || *goarch == "" || *version == "" {
		return errors.New("archive needs --binary, --os, --arch and --version")
	}
	files, err := archiveEntries(*root, *binary, *goos)
	if err != nil {
		return err
	}
	when := time.Now()
	if *mtime != 0 {
		when = time.Unix(*mtime, 0)
	}
	var buf bytes.Buffer
	if *goos == "windows" {
		err = writeZip(&buf, files, when)
	} else {
		err = writeTarGz(&buf, files, when)
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	dest := filepath.Join(*out, archiveName(*version, *goos, *goarch))
	if err := os.WriteFile(dest, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Println(dest)
	return nil
}

func writeTarGz(w io.Writer, files []entry, when time.Time) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		data, err := os.ReadFile(f.from)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: int64(f.mode), Size: int64(len(data)), ModTime: when, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, files []entry, when time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		data, err := os.ReadFile(f.from)
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: when}
		h.SetMode(f.mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// goreleaserFiles reads archives.files from .goreleaser.yaml: each entry's
// src, dst and strip_parent, in order (the few keys this file uses, one
// per line: no YAML library for them).
func goreleaserFiles(yaml []byte) ([]archiveFile, []bool, error) {
	var files []archiveFile
	var strip []bool
	in := false
	for _, raw := range bytes.Split(yaml, []byte("\n")) {
		line := string(bytes.TrimRight(raw, " \r"))
		trim := string(bytes.TrimSpace(raw))
		switch {
		case trim == "files:":
			in = true
			continue
		case !in:
			continue
		case len(line) > 0 && line[0] != ' ':
			in = false
			continue
		}
		indent := len(line) - len(trim)
		switch key, val, _ := cut(trim); {
		case key == "- src":
			files = append(files, archiveFile{src: unquote(val)})
			strip = append(strip, false)
		case len(files) == 0:
		case key == "dst":
			files[len(files)-1].dst = unquote(val)
		case key == "strip_parent":
			strip[len(strip)-1] = val == "true"
		case indent <= 4 && key != "info" && key != "mtime":
			in = false
		}
	}
	if len(files) == 0 {
		return nil, nil, errors.New("no archives.files entries")
	}
	return files, strip, nil
}

func cut(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return s[:i], string(bytes.TrimSpace([]byte(s[i+1:]))), true
		}
	}
	return s, "", false
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}
