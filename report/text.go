package report

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteText writes the summary for a terminal (plain text; no colour).
func WriteText(w io.Writer, s *Summary) error {
	var b strings.Builder
	if s.Events == 0 {
		b.WriteString("no graded commands in the log\n")
	} else {
		fmt.Fprintf(&b, "%d graded commands", s.Events)
		if !s.From.IsZero() {
			fmt.Fprintf(&b, ", %s … %s", stamp(s.From), stamp(s.To))
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "  allow %d (%s)   ask %d (%s)   deny %d (%s)\n",
			s.Verdicts["allow"], pct(s.Verdicts["allow"], s.Events),
			s.Verdicts["ask"], pct(s.Verdicts["ask"], s.Events),
			s.Verdicts["deny"], pct(s.Verdicts["deny"], s.Events))
		if s.Shadow > 0 {
			fmt.Fprintf(&b, "  shadow mode: %d of them graded but not enforced; rivumi would have: allow %d, ask %d, deny %d\n",
				s.Shadow, s.ShadowVerdicts["allow"], s.ShadowVerdicts["ask"], s.ShadowVerdicts["deny"])
		}
		if s.Overridden > 0 {
			fmt.Fprintf(&b, "  %d answered otherwise than the verdict (approved asks, --ask-as)\n", s.Overridden)
		}
		if len(s.Policies) > 0 {
			fmt.Fprintf(&b, "  policies: %s\n", strings.Join(s.Policies, ", "))
		}
	}
	if len(s.Rules) > 0 {
		b.WriteString("\nAsks and denies by rule:\n")
		width := 0
		for _, r := range s.Rules {
			width = max(width, len(r.Rule))
		}
		for _, r := range s.Rules {
			shadow := ""
			if r.Shadow > 0 {
				shadow = fmt.Sprintf(" (%d in shadow mode)", r.Shadow)
			}
			line := fmt.Sprintf("  %6d  %-4s  %-*s%s", r.Count, r.Decision, width, r.Rule, shadow)
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			if r.Title != "" {
				fmt.Fprintf(&b, "                %s\n", r.Title)
			}
			for _, e := range r.Examples {
				fmt.Fprintf(&b, "                  e.g. %s\n", oneLine(e))
			}
		}
	}
	writeSources(&b, s.BySource)
	if len(s.Uncovered) > 0 {
		b.WriteString("\nMost frequent uncovered commands (no rule covers them, so they ask):\n")
		for _, u := range s.Uncovered {
			fmt.Fprintf(&b, "  %6d  %s\n", u.Count, u.Prefix)
			for _, e := range u.Examples {
				fmt.Fprintf(&b, "            e.g. %s\n", e)
			}
			if u.Rule != "" {
				b.WriteString("          rule to paste (review it first):\n")
				for _, l := range strings.Split(u.Rule, "\n") {
					fmt.Fprintf(&b, "            %s\n", l)
				}
			}
		}
	}
	writeGate(&b, s.Gate)
	if len(s.Buckets) > 0 {
		fmt.Fprintf(&b, "\nDecisions over time (per %s):\n", span(s.BucketLen))
		most := 1
		for _, k := range s.Buckets {
			most = max(most, k.Total())
		}
		for i := 0; i < len(s.Buckets); i++ {
			k := s.Buckets[i]
			if j := emptyRun(s.Buckets, i); j-i >= 2 {
				fmt.Fprintf(&b, "  … %s without decisions\n", spanOf(s.BucketLen, j-i))
				i = j - 1
				continue
			}
			bar := strings.Repeat("#", scale(k.Counts["deny"], most, 40)) +
				strings.Repeat("?", scale(k.Counts["ask"], most, 40)) +
				strings.Repeat(".", scale(k.Counts["allow"], most, 40))
			fmt.Fprintf(&b, "  %s  %4d allow %4d ask %4d deny  %s\n", stamp(k.Start), k.Counts["allow"], k.Counts["ask"], k.Counts["deny"], bar)
		}
		b.WriteString("  (# deny, ? ask, . allow)\n")
	}
	if len(s.Problems) > 0 {
		fmt.Fprintf(&b, "\n%d unreadable lines skipped:\n", len(s.Problems))
		for i, p := range s.Problems {
			if i == 5 {
				fmt.Fprintf(&b, "  … and %d more\n", len(s.Problems)-5)
				break
			}
			fmt.Fprintf(&b, "  %s\n", p)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSources writes the verdicts by source as a table.
func writeSources(b *strings.Builder, sources []SourceCount) {
	if len(sources) == 0 {
		return
	}
	width := len("source")
	shadow := false
	for _, sc := range sources {
		width = max(width, len(sourceName(sc.Source)))
		shadow = shadow || sc.Shadow > 0
	}
	b.WriteString("\nBy source:\n")
	fmt.Fprintf(b, "  %-*s  %6s  %6s  %6s", width, "source", "allow", "ask", "deny")
	if shadow {
		fmt.Fprintf(b, "  %6s", "shadow")
	}
	b.WriteString("\n")
	for _, sc := range sources {
		fmt.Fprintf(b, "  %-*s  %6d  %6d  %6d", width, sourceName(sc.Source), sc.Verdicts["allow"], sc.Verdicts["ask"], sc.Verdicts["deny"])
		if shadow {
			fmt.Fprintf(b, "  %6d", sc.Shadow)
		}
		b.WriteString("\n")
	}
}

func sourceName(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// oneLine keeps a logged command on one line of the report, at most 200
// runes.
func oneLine(s string) string {
	s = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

func pct(n, total int) string {
	if total == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

// scale maps n of most onto width characters, at least one for n > 0.
func scale(n, most, width int) int {
	if n <= 0 {
		return 0
	}
	return max(1, n*width/most)
}

func span(d time.Duration) string {
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		if d == 24*time.Hour {
			return "day"
		}
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	case d >= time.Hour && d%time.Hour == 0:
		if d == time.Hour {
			return "hour"
		}
		return fmt.Sprintf("%d hours", d/time.Hour)
	case d == time.Minute:
		return "minute"
	}
	return fmt.Sprintf("%d minutes", d/time.Minute)
}

// emptyRun returns the end of the run of empty buckets starting at i.
func emptyRun(bs []Bucket, i int) int {
	j := i
	for j < len(bs) && bs[j].Total() == 0 {
		j++
	}
	return j
}

// spanOf says how long n buckets of d are ("29 minutes", "3 days").
func spanOf(d time.Duration, n int) string {
	total := d * time.Duration(n)
	switch {
	case total%(24*time.Hour) == 0:
		return plural(int(total/(24*time.Hour)), "day")
	case total%time.Hour == 0:
		return plural(int(total/time.Hour), "hour")
	}
	return plural(int(total/time.Minute), "minute")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
