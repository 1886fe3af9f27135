package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/mcp-bridge/mcp-bridge/lifecycle/clienterr"
	"github.com/mcp-bridge/mcp-bridge/rpc"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
)

// Starting CAD when its base is down (Config.Launch, --launch). A job that
// needs the base and finds it down starts the user's CAD program, waits
// for its base, then goes on: a tools/call, or a tools/list with no list
// to fall back on. The worker is sequential, so the calls queued meanwhile
// wait in order; the launch does not count against the call's timeout,
// which starts once the base is up. The job hears progress while it
// waits; a failed launch is its answer, -32603 with data.kind
// launch_failed, launch_timeout or launch_backoff.
//
// Two hooks in the worker (runJob): launchIfDown before anything reads the
// base, when it is already known to be down (under a policy, the base's
// tool list is read before the call); launchThenCall after callBase found
// it unreachable.

// Launcher starts the CAD program: *launch.Launcher. Ensure returns nil
// once the base accepts connections, a *launch.Error when the launch
// failed, or ctx's error; progress hears what it does.
type Launcher interface {
	Ensure(ctx context.Context, progress func(msg string)) error
}

// wantsLaunch: the job may start CAD when the base is down.
func (b *bridge) wantsLaunch(j *job) bool {
	if b.cfg.Launch == nil {
		return false
	}
	switch j.req.Method {
	case "tools/call":
		return true
	case "tools/list":
		return b.tools.fallback(b.log) == nil
	}
	return false
}

// mayLaunch: callBase found the base unreachable (nothing was sent), and
// the job may start CAD.
func (b *bridge) mayLaunch(j *job, err error) bool {
	return tcpbase.KindOf(err) == tcpbase.ErrUnreachable && b.wantsLaunch(j)
}

// launchIfDown starts CAD before the job reads the base, when the base is
// known to be down. It reports whether the job is over: answered (the
// launch failed) or ended meanwhile. The request is still waiting
// (reqWaiting) while CAD starts: nothing of it has reached the base, and a
// session that ends meanwhile drops it unsent. It runs before runJob's own
// recover: it has one of its own.
func (b *bridge) launchIfDown(j *job) (over bool) {
	if b.cfg.Launch == nil || !b.tools.isDown() || !b.wantsLaunch(j) { // no lock taken without --launch
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			b.log.Error().Interface("panic", p).Str("stack", string(debug.Stack())).Msg("panic while starting the CAD program; the bridge goes on")
			j.reply.fail(clienterr.Internal.New("starting CAD for", j.reply.method))
			over = true
		}
	}()
	err := b.launch(j)
	if err == nil {
		return false
	}
	if werr := launchFailure(err, b.cfg.BaseAddr, j.reply.method); werr != nil {
		b.settle(j, outcome{answer: rpc.EncodeError(j.req.ID, werr), err: werr})
	} else {
		b.settle(j, b.outcome(j, nil, err, b.hardCtx)) // shut down, or ended meanwhile (no answer)
	}
	return true
}

// launchThenCall starts CAD for a job whose call found the base
// unreachable (baseErr), then sends the job with its full timeout. While
// CAD starts the request is waiting again (nothing of it reached the
// base: a session that ends meanwhile drops it unsent), then running. A
// failed launch comes back as an error that is both the launch's (the
// answer: launchFailure) and the base's (the base is down: baseResult).
func (b *bridge) launchThenCall(j *job, baseErr error) ([]byte, error) {
	r := j.reply
	j.sent = false // unreachable: nothing reached the base
	ended := &tcpbase.Error{Kind: tcpbase.ErrCanceled, Addr: b.cfg.BaseAddr, Err: context.Canceled}
	if !r.client.update(r, reqWaiting, reqRunning) {
		return nil, ended // it ended meanwhile
	}
	if err := b.launch(j); err != nil {
		return nil, launchError{launch: err, base: baseErr}
	}
	if !r.client.update(r, reqRunning, reqWaiting) {
		return nil, ended
	}
	timeout := b.cfg.CallTimeout
	if r.method == "tools/list" {
		timeout = b.cfg.ListTimeout
	}
	ctx, cancel := context.WithTimeout(r.ctx, timeout)
	defer cancel()
	start := time.Now()
	stop := b.heartbeat(r, j.req.ProgressToken, start)
	defer stop()
	j.sent = true
	return b.callBase(ctx, j)
}

// launch runs the launcher for j within the request's context (the
// client's cancel, its session's end and the bridge's abort end the wait,
// never the launch), telling the job's progress token what happens.
func (b *bridge) launch(j *job) error {
	r := j.reply
	token := j.req.ProgressToken
	progress := func(msg string) {
		if token != nil {
			r.notify(progressNote(token, r.progress.Add(1), msg))
		}
	}
	b.log.Info().Str("method", r.method).Str("id", r.id.String()).Msg("CAD base is down: starting the CAD program (--launch) before sending the request")
	// Once it is up, the call's own answer says so (baseResult): the
	// prober rests, and clients hear that the tool list may have changed.
	return b.cfg.Launch.Ensure(r.ctx, progress)
}

// progressNote is notifications/progress for token: the n-th, saying msg.
func progressNote(token []byte, n int64, msg string) rpc.Encoded {
	m, _ := json.Marshal(msg) // a Go string always marshals
	params := `{"progressToken":` + string(token) + `,"progress":` + strconv.FormatInt(n, 10) + `,"message":` + string(m) + `}`
	return rpc.EncodeNotification("notifications/progress", []byte(params))
}

// launchError is a failed launch for a call that found the base down.
type launchError struct{ launch, base error }

func (e launchError) Error() string   { return e.launch.Error() }
func (e launchError) Unwrap() []error { return []error{e.launch, e.base} }

// launchFailure is what the client reads when the launch failed: -32603,
// the launcher's message (what was started, how long it waited, how it
// ended, its last lines of output, when the next try may be), and data
// with the kind; nil when err is no failed launch.
func launchFailure(err error, addr, method string) *rpc.WireError {
	var le *launch.Error
	if !errors.As(err, &le) {
		return nil
	}
	entry := clienterr.LaunchFailed
	switch le.Kind {
	case launch.ErrTimeout:
		entry = clienterr.LaunchTimeout
	case launch.ErrBackoff:
		entry = clienterr.LaunchBackoff
	}
	data := map[string]any{"address": addr, "method": method, "command": le.Command}
	if le.Waited > 0 {
		data["waited_ms"] = le.Waited.Milliseconds()
	}
	if le.Exit != "" {
		data["exit"] = le.Exit
	}
	if len(le.Output) > 0 {
		data["output"] = le.Output
	}
	if !le.RetryAt.IsZero() {
		data["retry_after"] = le.RetryAt.UTC().Format(time.RFC3339)
	}
	return entry.WithValues(data, le.Msg, method)
}
