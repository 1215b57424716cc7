package harness

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rivumi/rivumi/internal/shquote"
	"github.com/rivumi/rivumi/verdict"
)

// Answer is an approver's reply to an ask. The zero value is [AnswerDeny],
// so an approver that returns nothing denies.
type Answer int

const (
	// AnswerDeny refuses the command.
	AnswerDeny Answer = iota
	// AnswerOnce runs the command this time only.
	AnswerOnce
	// AnswerAlways runs the command and records grants (see
	// [ApprovalRequest.Grants]) so that the same asks on the same argv
	// prefix are not asked again.
	AnswerAlways
)

// String returns "deny", "once" or "always".
func (a Answer) String() string {
	switch a {
	case AnswerDeny:
		return "deny"
	case AnswerOnce:
		return "once"
	case AnswerAlways:
		return "always"
	}
	return fmt.Sprintf("answer(%d)", int(a))
}

// ApprovalRequest is what an [Approver] is asked to decide.
type ApprovalRequest struct {
	Argv    []string
	Dir     string
	Verdict verdict.Verdict // Decision is Ask
	// Grants is what answering [AnswerAlways] would record: one grant per
	// argv prefix of the grantable asks. Empty when nothing is grantable, in
	// which case AnswerAlways counts as AnswerOnce.
	Grants []verdict.Grant
	// Deadline is when the harness stops waiting and denies.
	Deadline time.Time
}

// Approver decides asks. The harness calls Approve with a context that is
// cancelled at the approval deadline or when the run is cancelled; whatever
// the approver answers after that, and any error, is a deny. Approvers
// must be safe for concurrent use if the [Harness] is.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Answer, error)
}

// ApproverFunc adapts a function to [Approver], for programs that embed the
// harness and ask their user their own way.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Answer, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Answer, error) {
	return f(ctx, req)
}

// Headless answers every ask without a human. Its zero value denies.
type Headless struct {
	// Fallback is the answer to every ask: AnswerDeny (the default) or
	// AnswerOnce. AnswerAlways is treated as AnswerOnce: nobody consented to
	// a grant.
	Fallback Answer
}

// Approve returns h.Fallback (never AnswerAlways).
func (h Headless) Approve(ctx context.Context, _ ApprovalRequest) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return AnswerDeny, err
	}
	if h.Fallback == AnswerOnce || h.Fallback == AnswerAlways {
		return AnswerOnce, nil
	}
	return AnswerDeny, nil
}

// Interactive asks a human on a terminal: it prints the command, the
// decision and every reason (rule, title, justification), then reads one
// line: "o" (once), "a" (always for the shown prefixes) or "d" (deny).
// Anything else is asked again, up to three times; end of input, the
// deadline or a cancelled context deny.
//
// Lines typed before a prompt appears are discarded, so type-ahead cannot
// approve a command its author has not seen. One background goroutine
// reads In for the life of the Interactive.
type Interactive struct {
	in  io.Reader
	out io.Writer

	once  sync.Once
	lines chan string // closed at end of input
	mu    sync.Mutex  // one prompt at a time
}

// NewInteractive returns an approver that prompts on out and reads
// answers from in (typically the terminal's stdin and stderr).
func NewInteractive(in io.Reader, out io.Writer) *Interactive {
	return &Interactive{in: in, out: out, lines: make(chan string)}
}

func (p *Interactive) start() {
	p.once.Do(func() {
		go func() {
			sc := bufio.NewScanner(p.in)
			for sc.Scan() {
				p.lines <- sc.Text()
			}
			close(p.lines)
		}()
	})
}

// Approve prompts and waits for an answer; see [Interactive].
func (p *Interactive) Approve(ctx context.Context, req ApprovalRequest) (Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start()
	// Discard type-ahead.
	for drained := false; !drained; {
		select {
		case _, ok := <-p.lines:
			if !ok {
				drained = true
			}
		default:
			drained = true
		}
	}
	writePrompt(p.out, req)
	for range 3 {
		choices := "[o]nce, [d]eny"
		if len(req.Grants) > 0 {
			choices = "[o]nce, [a]lways for " + grantsLabel(req.Grants) + ", [d]eny"
		}
		wait := ""
		if !req.Deadline.IsZero() {
			wait = fmt.Sprintf(", %s to answer", time.Until(req.Deadline).Round(time.Second))
		}
		fmt.Fprintf(p.out, "Run it? %s (default deny%s): ", choices, wait)
		select {
		case <-ctx.Done():
			fmt.Fprintln(p.out, "\nrivumi: no answer: denied")
			return AnswerDeny, ctx.Err()
		case line, ok := <-p.lines:
			if !ok {
				fmt.Fprintln(p.out, "\nrivumi: end of input: denied")
				return AnswerDeny, nil
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "o", "once", "y", "yes":
				return AnswerOnce, nil
			case "a", "always":
				if len(req.Grants) > 0 {
					return AnswerAlways, nil
				}
			case "", "d", "deny", "n", "no":
				return AnswerDeny, nil
			}
			fmt.Fprintln(p.out, "rivumi: please answer o, a or d")
		}
	}
	return AnswerDeny, nil
}

func writePrompt(w io.Writer, req ApprovalRequest) {
	fmt.Fprintf(w, "rivumi: %s needs approval (%s)\n", shquote.Display(req.Argv), req.Verdict.Decision)
	if req.Dir != "" {
		fmt.Fprintf(w, "  in %s\n", req.Dir)
	}
	for _, r := range req.Verdict.Reasons {
		title := r.Title
		if title == "" {
			title = r.Text
		}
		fmt.Fprintf(w, "  - %-5s %s", r.Decision, r.Rule)
		if title != "" {
			fmt.Fprintf(w, ": %s", title)
		}
		fmt.Fprintln(w)
		if r.Justification != "" {
			fmt.Fprintf(w, "          why: %s\n", r.Justification)
		}
	}
}

func grantsLabel(gs []verdict.Grant) string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = shquote.Display(g.Prefix)
	}
	return strings.Join(parts, ", ")
}

// approverName names an approver for the audit log.
func approverName(a Approver) string {
	switch a.(type) {
	case *Interactive:
		return "interactive"
	case Headless, *Headless:
		return "headless"
	case ApproverFunc:
		return "callback"
	}
	if n, ok := a.(interface{ Name() string }); ok {
		return n.Name()
	}
	return fmt.Sprintf("%T", a)
}
