package register

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/configs/clientconf"
)

// TransientWarning is the warning, for stderr, when the binary being
// registered lives in a folder that will not last, with the command that
// registers a copy that stays instead; "" when nothing suggests so.
// args are the arguments of that command, after the program's name.
func TransientWarning(ce clientconf.Env, exe, args string) string {
	why := ce.Transient(exe)
	if why == "" {
		return ""
	}
	return fmt.Sprintf("warning: %s is in %s: once it is gone, the client cannot start the bridge.\n  Register a copy that stays (%s):\n  %s\n", exe, why, filepath.Dir(ce.CopyTarget()), strings.Join(RunFrom(ce.OS, exe, ce.Dir, args), "\n  "))
}

// SetTokenVar is the command that sets the token variable from the token
// file: for the user's environment in PowerShell on Windows (clients
// started from the Start menu inherit it; restart them), for the shell's
// profile elsewhere.
func SetTokenVar(goos, tokenFile string) string {
	if goos == "windows" {
		return fmt.Sprintf("[Environment]::SetEnvironmentVariable('%s', (Get-Content -Raw '%s').Trim(), 'User')",
			clientconf.TokenVar, strings.ReplaceAll(tokenFile, "'", "''"))
	}
	return fmt.Sprintf("export %s=\"$(cat %s)\"", clientconf.TokenVar, ShellQuoteIfNeeded(tokenFile))
}

// ProgName is how to run the program file name from a terminal (cmd or
// PowerShell on Windows) in its folder: on Windows by its path in that
// folder (.\mcp-bridge.exe: PowerShell runs no program of the current
// folder by bare name), with PowerShell's & '…' when the name needs
// quoting (a browser saves a second download as "mcp-bridge (1).exe");
// elsewhere as mcp-bridge, the name install --copy gives it.
func ProgName(goos, name string) string {
	if goos != "windows" {
		return "mcp-bridge"
	}
	if strings.ContainsAny(name, " '\"&()[]{}$`;,@#%^=+~") {
		return "& '.\\" + strings.ReplaceAll(name, "'", "''") + "'"
	}
	return `.\` + name
}

// RunFrom is the command line that runs exe (its path by goos's rules)
// with args from a terminal whose working folder is dir: prefixed with
// the cd to exe's folder on Windows when that is another one; elsewhere
// ./mcp-bridge in its folder, else its path (it is on no PATH before
// install --copy).
func RunFrom(goos, exe, dir, args string) []string {
	if goos != "windows" {
		if filepath.Clean(filepath.Dir(exe)) == filepath.Clean(dir) {
			return []string{ShellQuoteIfNeeded("./"+filepath.Base(exe)) + " " + args}
		}
		return []string{ShellQuoteIfNeeded(exe) + " " + args}
	}
	i := strings.LastIndexAny(exe, `\/`)
	folder, name := exe[:i+1], exe[i+1:]
	lines := []string{ProgName(goos, name) + " " + args}
	if trim := strings.TrimRight(folder, `\/`); folder != "" && !strings.EqualFold(trim, strings.TrimRight(dir, `\/`)) {
		if strings.HasSuffix(trim, ":") { // C:\, not C:
			trim = folder
		}
		lines = append([]string{`cd "` + trim + `"`}, lines...)
	}
	return lines
}

// ShellQuote quotes s for the shell the user most likely has: single
// quotes for POSIX shells, double quotes (inner ones doubled) for cmd and
// PowerShell on Windows.
func ShellQuote(s string) string {
	if runtime.GOOS == "windows" {
		return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellQuoteIfNeeded is s as it is when no shell would read it otherwise,
// else ShellQuote(s).
func ShellQuoteIfNeeded(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'$`\\|&;<>()*?[]{}~") {
		return s
	}
	return ShellQuote(s)
}

// QuoteFor quotes a word for pasting into a shell of goos (cmd or
// PowerShell on Windows, a POSIX shell elsewhere): nothing when it needs
// none.
func QuoteFor(goos, s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'$`|&;<>()*?[]{}~%!") && (goos == "windows" || !strings.Contains(s, `\`)) {
		return s
	}
	if goos == "windows" {
		return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
