// Package desktop: PLACEHOLDER types until helper h6's package is merged.
package desktop

import (
	"context"
	"time"
)

type Question struct {
	Bridge  string
	Client  string
	Tool    string
	Args    []byte
	Timeout time.Duration
}

type Answer int

const (
	Run Answer = iota
	DontRun
	TimedOut
	Cancelled
)

type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
	Name() string
}

func Find(env func(string) string, lookPath func(string) (string, error)) (Asker, string) {
	return nil, "placeholder"
}
