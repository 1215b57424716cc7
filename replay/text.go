package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteJSON writes s as one indented JSON document.
func WriteJSON(w io.Writer, s *Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteText writes s for a terminal: the totals, the changes (those that
// became allow first) with the commands behind them, the rules, and the
// lines not replayed.
func WriteText(w io.Writer, s *Summary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "replayed %d request(s) from %d line(s)", s.Replayed, s.Lines)
	if n := s.SkippedCount(); n > 0 {
		fmt.Fprintf(&b, "; %d not replayable", n)
	}
	fmt.Fprintf(&b, " in %s\n", s.Elapsed.Round(1e6))
	if s.Current != "" || s.Candidate != "" {
		fmt.Fprintf(&b, "policy %s (current) → %s (candidate)\n", orNone(s.Current), orNone(s.Candidate))
	}
	fmt.Fprintf(&b, "changed: %d, unchanged: %d", s.Changed, s.Unchanged)
	if n := s.BecameAllow(); n > 0 {
		fmt.Fprintf(&b, ", became allow: %d", n)
	}
	b.WriteString("\n")
	if s.Drift > 0 {
		fmt.Fprintf(&b, "note: %d request(s) get another verdict from the current policy than the log recorded\n", s.Drift)
	}
	if len(s.Changes) > 0 {
		b.WriteString("\nchanges:\n")
	}
	for _, c := range s.Changes {
		mark := ""
		switch {
		case c.BecameAllow():
			mark = "  ← became allow"
		case c.From == c.To:
			mark = "  (rules only)"
		}
		fmt.Fprintf(&b, "  %-5s → %-5s %8d%s\n", c.From, c.To, c.Count, mark)
		for _, e := range c.Examples {
			fmt.Fprintf(&b, "      %s", oneLine(e.Command))
			if e.Count > 1 {
				fmt.Fprintf(&b, "  (%d×)", e.Count)
			}
			fmt.Fprintf(&b, "  [%s:%d", e.File, e.Line)
			if e.Source != "" {
				fmt.Fprintf(&b, " %s", e.Source)
			}
			fmt.Fprintf(&b, "] %s → %s\n", ids(e.Before), ids(e.After))
		}
	}
	if len(s.Rules) > 0 {
		b.WriteString("\nby rule (changed requests it now fires on / no longer fires on):\n")
		for _, r := range s.Rules {
			line := fmt.Sprintf("  %-40s +%d -%d", r.Rule, r.Gained, r.Lost)
			if r.Title != "" {
				line = fmt.Sprintf("%-56s %s", line, r.Title)
			}
			b.WriteString(line + "\n")
		}
	}
	if len(s.Skipped) > 0 {
		b.WriteString("\nnot replayable:\n")
		for _, k := range s.Skipped {
			fmt.Fprintf(&b, "  %8d  %s\n", k.Count, k.Reason)
			for _, p := range k.Lines {
				fmt.Fprintf(&b, "            %s:%d", p.File, p.Line)
				if p.Detail != "" {
					fmt.Fprintf(&b, ": %s", oneLine(p.Detail))
				}
				b.WriteString("\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func ids(rs []string) string {
	if len(rs) == 0 {
		return "-"
	}
	return strings.Join(rs, ",")
}

// oneLine keeps a command on one line of the report, at most 200 runes.
func oneLine(s string) string {
	s = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}
