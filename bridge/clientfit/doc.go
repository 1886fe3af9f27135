// Package clientfit fits an answer to the client that asked: the table of
// clients' limits (how long each waits for a tools/call, the largest result
// and picture it takes, the tool metadata it reads), the settings that
// override it, and Fit, which reduces a tools/call result to those limits.
//
// The core applies it where an answer is written (habit 26, "adapt at the
// edge you own"): everything behind that point, the base included, stays
// unaware of which client asked. A client the table does not know gets no
// limit at all, which is what the bridge did before the table.
//
// Files: limits.go is the table, config.go the two settings, fit.go the
// result's structure and its budget, text.go cutting text, image.go the
// pictures, notes.go the words the client sees about what was done.
package clientfit
