package audit

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// redactBare is Redact without the prefilter: every expression on every
// text, as Redact ran before it had one.
func redactBare(s string) string {
	if s == "" {
		return s
	}
	for i := range detectors {
		s = detectors[i].replaceAll(s)
	}
	return s
}

// scanBare is Scan without the prefilter.
func scanBare(s string) []Finding {
	var out []Finding
	for _, d := range detectors {
		for _, loc := range d.re().FindAllStringIndex(s, -1) {
			m := s[loc[0]:loc[1]]
			if m == Redacted || (d.replace != nil && d.replace(m) == m) {
				continue
			}
			start := loc[0] + len(m) - len(strings.TrimLeft(m, "\r\n"))
			f := Finding{Kind: d.kind, Line: 1 + strings.Count(s[:start], "\n")}
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
		s = d.replaceAll(s)
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Line - b.Line })
	return out
}

// prefilterCorpus: secrets of every kind, in upper case, with non-ASCII
// letters that case-insensitive expressions fold onto ASCII ones, and
// every line of the repository's testcases and redaction test files.
func prefilterCorpus(t testing.TB) []string {
	c := []string{
		"", "ls -la", "/home/u/proj", "tool Bash; paths /a /b",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
		"ghp_0123456789abcdefABCDEF", "GHP_0123456789abcdefABCDEF", "github_pat_0123456789abcdef_XYZ",
		"sk-ant-api03-abcdefgh", "sk-proj-0123456789abcdef0123", "sk_live_0123456789abcdefXYZ", "RK_TEST_0123456789abcdef",
		"AKIAABCDEFGHIJKLMNOP", "aws_secret_access_key=abcdefghijklmnop0123", "AWS_SECRET_ACCESS_KEY = \"abcdefghijklmnop0123\"",
		"aws_ſecret_key=abcdefghijklmnop0123", "ſecret_access_key: abcdefghijklmnop0123", "aws_session_toKen=abcdefghijklmnop0123",
		"xoxb-0123456789-abc", "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX", "glpat-0123456789abcdefghij",
		"AIzaSyA0123456789abcdefghijklmnopqrstu", "npm_0123456789abcdefghijklmnopqrstuvwxyz", "//registry/:_authToken=abc",
		"hf_0123456789abcdefghijklmnopqrstuvwxyz", "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4",
		"Authorization: Bearer abcdefghijkl", "AUTHORIZATION: token", "curl -H 'X-API-KEY: s3cr3t'", "Cookie: sid=abc",
		"Set-Cookie: a=b", "proxy-authoriſation: x", "bearer abcdefghijkl", "BASIC dXNlcjpwYXNz", "beaᴙer abcdefghij",
		"https://user:pass@example.com/x", "HTTPS://USER:PASS@EXAMPLE.COM", "git clone ftp://a:b@h/",
		"PGPASSWORD=hunter2 psql", "export GITHUB_TOKEN=abc", "token=token", `{"password": "x"}`, "api_key: abc",
		"password:\n  secret", "Token: token,", "ſecret: value", "K\u212a: v",
	}
	files, _ := filepath.Glob("../testcases/*.yaml")
	more, _ := filepath.Glob("*_test.go")
	for _, f := range append(files, more...) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		var all []string
		for sc.Scan() {
			c = append(c, sc.Text())
			all = append(all, sc.Text())
		}
		fh.Close()
		c = append(c, strings.Join(all, "\n"))
	}
	return c
}

// TestRedactPrefilter: Redact answers what the bare expressions answer,
// and every detector has its prefilter.
func TestRedactPrefilter(t *testing.T) {
	for _, d := range detectors {
		if len(d.needs) == 0 {
			t.Errorf("detector %s %s has no needs", d.kind, d.re())
		}
	}
	corpus := prefilterCorpus(t)
	if len(corpus) < 1000 {
		t.Fatalf("corpus of %d texts: the testcases were not found", len(corpus))
	}
	for _, s := range corpus {
		if got, want := Redact(s), redactBare(s); got != want {
			t.Errorf("Redact(%.200q)\n= %.200q\nbare expressions: %.200q", s, got, want)
		}
		if got, want := Scan(s), scanBare(s); !slices.Equal(got, want) {
			t.Errorf("Scan(%.200q) = %v; bare expressions: %v", s, got, want)
		}
	}
}

// FuzzRedactPrefilter: as TestRedactPrefilter, for any text.
func FuzzRedactPrefilter(f *testing.F) {
	for _, s := range prefilterCorpus(f)[:60] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Redact(s), redactBare(s); got != want {
			t.Fatalf("Redact(%q) = %q; bare expressions: %q", s, got, want)
		}
		if got, want := Scan(s), scanBare(s); !slices.Equal(got, want) {
			t.Fatalf("Scan(%q) = %v; bare expressions: %v", s, got, want)
		}
	})
}

// BenchmarkRedactEntry: the redaction of a hook call's audit entry.
func BenchmarkRedactEntry(b *testing.B) {
	e := Entry{Kind: KindGrade, Source: "hook/claude-code", Cwd: "/home/u/src/proj", Workspace: "/home/u/src/proj",
		Command: "git status && ls -la", Note: "tool Bash"}
	for b.Loop() {
		redactEntry(e)
	}
}
