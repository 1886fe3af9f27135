//go:build !windows

package desktop

func findWindows() (Asker, string) {
	return nil, "the Windows dialog is built into the Windows binary only"
}
