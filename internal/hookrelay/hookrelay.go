// Package hookrelay is the wire form of a hook call relayed over the
// per-user unix socket of `rivumi serve`: the thin client
// (cmd/rivumi-hook) sends the call — the agent, the hook flags, the
// payload, its cwd and environment — and the server runs the very code
// `rivumi hook AGENT` runs, grading with its warm engine, and sends back
// the exit code and the bytes for stdout and stderr. Answers, decision
// log entries and failures are therefore those of the full binary.
//
// The package links neither the policy engine nor net/http: the client's
// start-up cost is the point.
package hookrelay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Path is the HTTP path of the relay on the socket. The server serves it
// on its unix socket only, never over TCP.
const Path = "/v1/hook"

// MaxBody bounds a relayed call in its wire form ([ContentType]: the
// payload is at most [MaxStdin] bytes, the flags and environment the
// rest) and an answer.
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
	// The call after a header of a fixed size, so that one buffer and
	// one write carry both.
	n := callSize(c)
	req := make([]byte, 0, len(reqHead)+20+4+n)
	req = append(req, reqHead...)
	req = strconv.AppendInt(req, int64(n), 10)
	req = append(req, "\r\n\r\n"...)
	req = AppendCall(req, c)
	if _, err := conn.Write(req); err != nil {
		return Result{}, noAnswer(ctx, err)
	}
	var r Result
	if err := readResponse(bufio.NewReader(conn), &r); err != nil {
		return Result{}, noAnswer(ctx, err)
	}
	return r, nil
}

// reqHead is the request's head up to the Content-Length's value.
const reqHead = "POST " + Path + " HTTP/1.1\r\nHost: rivumi\r\nContent-Type: " + ContentType + "\r\nConnection: close\r\nContent-Length: "

// noAnswer wraps a failed exchange: in [ErrTimeout] too when it is the
// deadline passing.
func noAnswer(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w: %w: %v", ErrNoAnswer, ErrTimeout, err)
	}
	return fmt.Errorf("%w: %v", ErrNoAnswer, err)
}

// readResponse reads an HTTP/1.1 response with a Content-Length body
// (what the server writes for the relay) and decodes it into r.
func readResponse(br *bufio.Reader, r *Result) error {
	status, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	f := strings.Fields(status)
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/1.") {
		return fmt.Errorf("bad status line %q", strings.TrimSpace(status))
	}
	length := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), "Content-Length") {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || length < 0 || length > MaxBody {
				return fmt.Errorf("bad Content-Length %q", v)
			}
		}
	}
	if length < 0 {
		return errors.New("answer without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(br, body); err != nil {
		return err
	}
	if f[1] != "200" {
		return fmt.Errorf("server: %s: %.200s", strings.Join(f[1:], " "), bytes.TrimSpace(body))
	}
	res, err := DecodeResult(body)
	if err != nil {
		return err
	}
	*r = res
	return nil
}
