package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/internal/lazyre"
	"github.com/rivumi/rivumi/workspace/bundle"
)

// RecordCheck stores the result of a verification command run: it
// replaces the check's entry in verification.json (kept in the request's
// order) and appends its output to test.log. Both files are rewritten
// atomically and redacted.
//
// When res.TreeBefore is set (by [Workspace.TreeDigest] before the check
// ran), RecordCheck sets res.TreeAfter; [Workspace.Finish] fails a run
// whose check changed the work tree, or whose tree changed after a check.
func (w *Workspace) RecordCheck(res bundle.CheckResult, output string) error {
	if res.TreeBefore != "" && res.TreeAfter == "" {
		d, err := w.TreeDigest(context.Background())
		if err != nil {
			d = "unknown: " + err.Error()
		}
		res.TreeAfter = d
	}
	v, err := w.Verification()
	if err != nil {
		return err
	}
	v.Checks = slices.DeleteFunc(v.Checks, func(c bundle.CheckResult) bool { return c.Name == res.Name })
	v.Checks = append(v.Checks, res)
	order := func(name string) int {
		return slices.IndexFunc(w.req.Checks, func(c bundle.Check) bool { return c.Name == name })
	}
	slices.SortStableFunc(v.Checks, func(a, b bundle.CheckResult) int { return order(a.Name) - order(b.Name) })
	if err := w.bundle.WriteJSON(bundle.VerificationFile, v); err != nil {
		return err
	}
	old, err := os.ReadFile(w.bundle.File(bundle.TestLogFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("workspace: %w", err)
	}
	status := fmt.Sprintf("exit %d", res.ExitCode)
	switch {
	case !res.Ran:
		status = "did not run: " + res.Error
	case res.TimedOut:
		status = "timed out"
	}
	entry := fmt.Sprintf("=== %s: %s (%s, %s)\n%s", res.Name, strings.Join(res.Argv, " "), status,
		res.Started.Format(time.RFC3339), output)
	if !strings.HasSuffix(entry, "\n") {
		entry += "\n"
	}
	return w.bundle.WriteText(bundle.TestLogFile, string(old)+entry)
}

// Verification returns verification.json's content (empty before any
// check ran).
func (w *Workspace) Verification() (bundle.Verification, error) {
	var v bundle.Verification
	err := w.bundle.ReadJSON(bundle.VerificationFile, &v)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		return bundle.Verification{Checks: []bundle.CheckResult{}}, nil
	}
	return v, err
}

// Modifying reports whether a tool may change the work tree; a check
// result older than the last such call does not verify the final change.
func Modifying(tool string) bool {
	switch tool {
	case "replace_text", "apply_patch", "shell":
		return true
	}
	return false
}

// Finish ends the run: it writes changes.patch (the diff against the
// pinned commit), scans it for secrets, makes sure verification.json and
// test.log exist, and writes result.json with the status and the terminal
// reason (default "finished"). The status is failed when the change
// touches a path outside allowed_paths (listed in OutsideAllowed) or a
// problem is found (listed in Problems: a check that changed the work
// tree while it ran, a work tree that changed after the checks ran, a
// .git planted in the work tree); else passed when every configured check
// passed after the last call that could change the work tree, unverified
// when no checks are configured, and failed otherwise. When rivumi's git
// refuses the clone's git directory (see [Workspace.Git]) Finish writes a
// failed result.json saying so and returns the error.
func (w *Workspace) Finish(ctx context.Context, reason string) (bundle.Result, error) {
	if reason == "" {
		reason = "finished"
	}
	res := bundle.Result{
		Status: bundle.StatusFailed, Reason: reason, Commit: w.req.Commit,
		Artifacts: bundle.Artifacts(), ChangedFiles: []string{}, Findings: []bundle.FileFinding{},
	}
	failClosed := func(err error) (bundle.Result, error) {
		res.Finished = time.Now().UTC()
		res.Problems = append(res.Problems, "finish could not read the change: "+err.Error())
		return res, errors.Join(err, w.bundle.WriteJSON(bundle.ResultFile, res))
	}
	diff, err := w.Diff(ctx)
	if err != nil {
		return failClosed(fmt.Errorf("workspace: diff: %w", err))
	}
	text := string(diff)
	diff = nil // one copy of a large diff at a time
	if err := bundle.WriteFileAtomic(w.bundle.File(bundle.PatchFile), RedactPatch(text), 0o600); err != nil {
		return bundle.Result{}, err
	}
	res.ChangedFiles, res.Findings = ScanPatch(text)
	text = ""
	ch, err := w.change(ctx)
	if err != nil {
		return failClosed(fmt.Errorf("workspace: change: %w", err))
	}
	if len(w.req.AllowedPaths) > 0 {
		for _, p := range ch.paths {
			if !w.policy.Writable(p) {
				res.OutsideAllowed = append(res.OutsideAllowed, p)
			}
		}
	}
	for _, p := range ch.planted {
		res.Problems = append(res.Problems, fmt.Sprintf("%s: a .git planted in the work tree (what it holds is not in changes.patch)", p))
	}
	final, err := w.TreeDigest(ctx)
	if err != nil {
		return failClosed(err)
	}
	v, err := w.Verification()
	if err != nil {
		return bundle.Result{}, err
	}
	if _, err := os.Stat(w.bundle.File(bundle.VerificationFile)); errors.Is(err, fs.ErrNotExist) {
		if err := w.bundle.WriteJSON(bundle.VerificationFile, v); err != nil {
			return bundle.Result{}, err
		}
	}
	if _, err := os.Stat(w.bundle.File(bundle.TestLogFile)); errors.Is(err, fs.ErrNotExist) {
		if err := w.bundle.WriteText(bundle.TestLogFile, ""); err != nil {
			return bundle.Result{}, err
		}
	}
	for _, c := range v.Checks {
		switch {
		case strings.HasPrefix(c.TreeBefore, "unknown:") || strings.HasPrefix(c.TreeAfter, "unknown:"):
			res.Problems = append(res.Problems, fmt.Sprintf("check %s: the work tree could not be read around it (%s)", c.Name,
				strings.TrimPrefix(c.TreeBefore+c.TreeAfter, "unknown: ")))
		case c.TreeBefore != "" && c.TreeAfter != c.TreeBefore:
			res.Problems = append(res.Problems, fmt.Sprintf("check %s changed the work tree while it ran", c.Name))
		case c.Passed && c.TreeAfter != "" && c.TreeAfter != final:
			res.Problems = append(res.Problems, fmt.Sprintf("the work tree changed after check %s ran", c.Name))
		}
	}
	events, err := w.bundle.Events()
	if err != nil {
		return bundle.Result{}, err
	}
	var lastChange time.Time
	for _, e := range events {
		if e.Sandbox != "" && !slices.Contains(res.Sandboxes, e.Sandbox) {
			res.Sandboxes = append(res.Sandboxes, e.Sandbox)
		}
		if Modifying(e.Tool) && e.Time.After(lastChange) {
			lastChange = e.Time
		}
	}
	res.Events, res.Finished = len(events), time.Now().UTC()
	switch {
	case len(res.OutsideAllowed) > 0 || len(res.Problems) > 0:
		// A change outside the allowed paths (a test's oracle edited
		// instead of the code), or a tree the checks did not see, fails
		// the run whatever the checks said.
	case len(w.req.Checks) == 0:
		res.Status = bundle.StatusUnverified
	case fresh(v, w.req.Checks, lastChange):
		res.Status = bundle.StatusPassed
	}
	return res, w.bundle.WriteJSON(bundle.ResultFile, res)
}

// FinishEvent is the event that records a finish call, the same from
// every front end (the MCP tool, the CLI): its arguments as given
// (compact JSON), ok with the status as summary, or the error; bytes in
// and out as the tools count them (out: result.json's JSON encoding, or
// the error).
func FinishEvent(args []byte, res bundle.Result, err error) bundle.Event {
	ev := bundle.Event{Tool: "finish", BytesIn: len(args)}
	var buf bytes.Buffer
	if cerr := json.Compact(&buf, args); cerr == nil {
		ev.Args = buf.Bytes()
	} else {
		ev.Args, _ = json.Marshal(string(args))
	}
	if err != nil {
		ev.Error = audit.Redact(err.Error())
		ev.BytesOut = len(ev.Error)
		return ev
	}
	ev.OK, ev.Summary = true, "status "+res.Status
	if b, merr := json.Marshal(res); merr == nil {
		if red, rerr := audit.RedactJSON(b); rerr == nil {
			ev.BytesOut = len(red)
		}
	}
	return ev
}

// fresh reports whether every check has a passing result that started
// after the last change.
func fresh(v bundle.Verification, checks []bundle.Check, lastChange time.Time) bool {
	for _, c := range checks {
		i := slices.IndexFunc(v.Checks, func(r bundle.CheckResult) bool { return r.Name == c.Name })
		if i < 0 || !v.Checks[i].Passed || v.Checks[i].Started.Before(lastChange) {
			return false
		}
	}
	return true
}

// ScanPatch returns the files a unified diff touches and the secrets found
// in its added lines, each with the file and the line of the patch it is
// on.
func ScanPatch(diff string) (files []string, findings []bundle.FileFinding) {
	files, findings = []string{}, []bundle.FileFinding{}
	file := ""
	for i, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			file = DiffGitPath(line)
			if file != "" && !slices.Contains(files, file) {
				files = append(files, file)
			}
		case strings.HasPrefix(line, "+++ "):
			if p := strings.TrimPrefix(line, "+++ "); p != "/dev/null" {
				file = strings.TrimPrefix(p, "b/")
			}
		case strings.HasPrefix(line, "+"):
			for _, f := range audit.Scan(line[1:]) {
				findings = append(findings, bundle.FileFinding{File: file, Finding: audit.Finding{Kind: f.Kind, Line: i + 1}})
			}
		}
	}
	return files, findings
}

// RedactPatch returns a unified diff redacted as [audit.Redact] redacts
// it whole, in bounded time and memory on a large one: line by line, so
// that each line meets only the detectors whose needs it holds, except a
// private key block, redacted from its BEGIN line to its END line (or to
// the end, as audit.Redact does with one that never ends) as one text. A
// match that would run across a line's end in the whole text (a "bearer"
// ending one line, a token starting the next) is not one here.
func RedactPatch(diff string) []byte {
	out := make([]byte, 0, len(diff)+len(diff)/16)
	for diff != "" {
		i := strings.IndexByte(diff, '\n')
		if i < 0 {
			i = len(diff) - 1
		}
		unit := diff[:i+1]
		if b := strings.Index(unit, "-----BEGIN"); b >= 0 {
			// A key block is one text, from this line to the end of its
			// END line (or to the end of the diff).
			unit = diff
			if loc := pemEnd().FindStringIndex(diff[b:]); loc != nil {
				e := b + loc[1]
				if k := strings.IndexByte(diff[e:], '\n'); k >= 0 {
					unit = diff[:e+k+1]
				}
			}
		}
		out = append(out, audit.Redact(unit)...)
		diff = diff[len(unit):]
	}
	return out
}

var pemEnd = lazyre.New(`-----END[ A-Z0-9]*PRIVATE KEY-----`)

// DiffGitPath returns the b/ path of a "diff --git a/X b/X" line (X
// without spaces, or the second half when both halves are equal).
func DiffGitPath(line string) string {
	rest := strings.TrimPrefix(line, "diff --git ")
	if n := len(rest); n%2 == 1 {
		a, b := rest[:n/2], rest[n/2+1:]
		if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return b[2:]
		}
	}
	if i := strings.LastIndex(rest, " b/"); i >= 0 {
		return rest[i+3:]
	}
	return ""
}
