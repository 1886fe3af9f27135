// Package launch starts the user's CAD program when its base is down, and
// waits until the base accepts connections. The program is the user's,
// with the user's unsaved drawing in it: it is started detached (its own
// session or process group, no console window, stdin and stdout not the
// client's pipe) and never stopped, not when the bridge exits, not when a
// client goes away.
//
// One launch at a time per base, across every bridge on the machine: a
// lock file beside the tool cache (flock on Unix, LockFileEx on Windows)
// is held while a bridge starts the program and waits; a bridge that finds
// the lock taken waits for it, then finds the base up and just connects.
// The lock file also holds the last launch's outcome, so that after a
// failed or timed-out launch every bridge given that command backs off,
// answering at once until the back-off ends; another command (the typo
// corrected) is tried at once.
//
// The command comes only from the user's own settings (flags, their
// variables): never from a client or the base.
package launch
