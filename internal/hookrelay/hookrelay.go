// Package hookrelay is the wire form of a hook call relayed over the
// per-user unix socket of `rivumi serve`: the thin client
// (cmd/rivumi-hook) sends the call — the agent, the hook flags, the
// payload, its cwd and environment — and the server runs the very code
// `rivumi hook AGENT` runs, grading with its warm engine, and sends back
// the exit code and the bytes for stdout and stderr. Answers, decision
// log entries and failures are therefore those of the full binary.
//
// The call goes over a plain connection in a frame of its own (wire.go),
// not as HTTP: the server tells the two apart by the frame's magic, and
// the exchange costs it ~0.1 ms less CPU than an HTTP request (and the
// client nothing of net/http). The package links neither the policy
// engine nor the net package (dial_unix.go): the client's start-up cost
// is the point.
package hookrelay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
)

// MaxStdin bounds the payload of a relayed call, and MaxBody a call's
// frame (the payload, the flags and the environment) and an answer's.
const (
	MaxStdin = 16 << 20
	MaxBody  = 2*MaxStdin + 1<<20
)

// Call is one hook call.
type Call struct {
	// Agent is the hook's agent: claude-code, gemini or codex.
	Agent string
	// Args are the hook's flags, as the agent's settings give them.
	Args []string
	// Stdin is the payload read from the agent.
	Stdin []byte
	// Cwd is the client's working directory and Env its environment
	// (KEY=value), as the full binary would have seen them.
	Cwd string
	Env []string
	// PPID is the client's parent (the agent), for the checks that look
	// at the agent's process (Gemini CLI's interactive session).
	PPID int
	// Exe is the client binary's path, protected from file tools like
	// the full binary's own.
	Exe string
}

// Result is the outcome of a relayed call.
type Result struct {
	// Code is the exit code and Stdout, Stderr the output of the hook.
	Code   int
	Stdout []byte
	Stderr []byte
	// Local means the server did not run the call (flags naming another
	// policy or server): the client runs the full binary instead.
	Local bool
}

// ErrNoAnswer wraps every failure to get a [Result]: nothing was
// answered, and the caller decides (the thin client runs the full
// binary, which grades in-process).
var ErrNoAnswer = errors.New("no answer from the server")

// ErrTimeout wraps the failures that are the deadline passing: the
// server may be grading still, and the caller blocks rather than try
// again.
var ErrTimeout = errors.New("the server did not answer in time")

// Do sends c to the server on the unix socket sock and returns its
// result. The deadline of ctx bounds the whole exchange (on unix systems
// it is all that does: a cancellation before it is not noticed until
// then).
func Do(ctx context.Context, sock string, c Call) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrNoAnswer, err)
	}
	deadline, _ := ctx.Deadline()
	conn, err := dial(sock, deadline)
	if err != nil {
		// Not even connected: never a timeout, so the caller may try
		// another way.
		return Result{}, fmt.Errorf("%w: %v", ErrNoAnswer, err)
	}
	defer conn.Close()
	if _, err := conn.Write(AppendCall(nil, c)); err != nil {
		return Result{}, noAnswer(ctx, err)
	}
	r, err := ReadResult(bufio.NewReader(conn))
	if err != nil {
		// A server that cannot run the call (a bad frame, another
		// user's call) closes the connection without an answer.
		return Result{}, noAnswer(ctx, err)
	}
	return r, nil
}

// noAnswer wraps a failed exchange: in [ErrTimeout] too when it is the
// deadline passing.
func noAnswer(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w: %w: %v", ErrNoAnswer, ErrTimeout, err)
	}
	return fmt.Errorf("%w: %v", ErrNoAnswer, err)
}
