package main

import (
	"context"
	"errors"
)

func runBridge(ctx context.Context, e *env, args []string) error {
	return errors.New("bridge: not yet")
}
