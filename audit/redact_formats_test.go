package audit_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/audit"
)

// TestRedactFormats has one case per credential format the workspace tools
// must never show an agent: each secret must be gone from Redact's output
// and reported by Scan with its kind, while the text around it survives.
func TestRedactFormats(t *testing.T) {
	tests := []struct {
		name, in, secret, kind string
	}{
		{"github classic", "token=x ghp_0123456789abcdefghijABCDEFGHIJ012345 end", "ghp_0123456789abcdefghij", "github-token"},
		{"github oauth", "use gho_0123456789abcdefghij0123 end", "gho_0123456789abcdefghij0123", "github-token"},
		{"github server", "GH ghs_0123456789abcdefghij0123 end", "ghs_0123456789abcdefghij0123", "github-token"},
		{"github fine-grained", "x github_pat_11ABCDEFG0123456789_abcdefghijklmnop end", "github_pat_11ABCDEFG", "github-token"},
		{"anthropic", "key: sk-ant-api03-0123456789abcdefXYZ end", "sk-ant-api03-0123456789", "anthropic-key"},
		{"openai legacy", "k sk-0123456789abcdefABCDEF0123 end", "sk-0123456789abcdef", "openai-key"},
		{"openai project", "k sk-proj-0123456789abcdefABCDEF end", "sk-proj-0123456789", "openai-key"},
		{"aws access key id", "id AKIAIOSFODNN7EXAMPLE end", "AKIAIOSFODNN7EXAMPLE", "aws-access-key-id"},
		{"aws session key id", "id ASIAIOSFODNN7EXAMPLE end", "ASIAIOSFODNN7EXAMPLE", "aws-access-key-id"},
		{"aws secret key (ini)", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = x", "wJalrXUtnFEMI", "aws-secret-key"},
		{"aws secret key (json)", `{"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "x": 1}`, "wJalrXUtnFEMI", "secret-assignment"},
		{"aws secret key (env)", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY make", "wJalrXUtnFEMI", "aws-secret-key"},
		{"google", "g AIzaSyA0123456789abcdefghijklmnopqrstuv end", "AIzaSyA0123456789", "google-api-key"},
		{"slack bot", "s xoxb-123456789012-abcdefghij end", "xoxb-123456789012", "slack-token"},
		{"slack user", "s xoxp-123456789012-abcdefghij end", "xoxp-123456789012", "slack-token"},
		{"stripe secret", "s sk_live_0123456789abcdefABCDEF end", "sk_live_0123456789", "stripe-key"},
		{"stripe restricted", "s rk_live_0123456789abcdefABCDEF end", "rk_live_0123456789", "stripe-key"},
		{"npm token", "n npm_0123456789abcdefghijABCDEFGHIJ0123 end", "npm_0123456789abcdefghij", "npm-token"},
		{"npmrc auth", "//registry.npmjs.org/:_authToken=deadbeef-0123-4567\nx", "deadbeef-0123", "npm-token"},
		{"pem private key", "a\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg\n-----END EC PRIVATE KEY-----\nb", "MHcCAQEEIBkg", "private-key"},
		{"jwt", "t eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end", "dozjgNryP4J3", "jwt"},
		{"url credentials", "git clone https://user:hunter2secret@example.com/r.git end", "hunter2secret", "url-credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := audit.Redact(tt.in)
			if strings.Contains(got, tt.secret) {
				t.Errorf("Redact(%q) = %q: the secret survived", tt.in, got)
			}
			if !strings.Contains(got, audit.Redacted) {
				t.Errorf("Redact(%q) = %q: nothing redacted", tt.in, got)
			}
			last := tt.in[strings.LastIndexAny(tt.in, " \n")+1:]
			if !strings.HasSuffix(got, last) {
				t.Errorf("Redact(%q) = %q: the text after the secret is lost", tt.in, got)
			}
			fs := audit.Scan(tt.in)
			if !slices.ContainsFunc(fs, func(f audit.Finding) bool { return f.Kind == tt.kind }) {
				t.Errorf("Scan(%q) = %v, want a %s finding", tt.in, fs, tt.kind)
			}
			if again := audit.Scan(got); len(again) != 0 {
				t.Errorf("Scan(Redact(%q)) = %v, want nothing", tt.in, again)
			}
		})
	}
}

func TestScanLines(t *testing.T) {
	in := "ok\npassword: hunter2\nfine\n+export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEF\n"
	got := audit.Scan(in)
	want := []audit.Finding{{Kind: "secret-assignment", Line: 2}, {Kind: "github-token", Line: 4}}
	if !slices.Equal(got, want) {
		t.Errorf("Scan = %v, want %v", got, want)
	}
	if fs := audit.Scan("author: bob\nsort --key=2\nPATH=/usr/bin\n"); len(fs) != 0 {
		t.Errorf("Scan of harmless text = %v", fs)
	}
}

func TestRedactKeyNeedsKeyPosition(t *testing.T) {
	for _, s := range []string{`path "/etc/passwd": absolute path`, `see foo.password: the field`} {
		if got := audit.Redact(s); got != s && strings.Contains(s, "/etc") {
			t.Errorf("Redact(%q) = %q", s, got)
		}
	}
	if got := audit.Redact("  password: hunter2"); got != "  password: "+audit.Redacted {
		t.Errorf("YAML key: %q", got)
	}
	// Source code that names secrets without holding one stays readable.
	for _, s := range []string{"\tToken: token,\n", "client(api_key=api_key)", "cfg := Config{Password: p.Password, User: u}"} {
		if got := audit.Redact(s); got != s {
			t.Errorf("Redact(%q) = %q", s, got)
		}
	}
	for in, want := range map[string]string{
		`	Password: "hunter2",`: `	Password: ` + audit.Redacted + `,`,
		"token: abc123  \nnext": "token: " + audit.Redacted + "\nnext",
	} {
		if got := audit.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactJSON(t *testing.T) {
	in := `{"z":1,"log":"password: \"x\" ghp_0123456789abcdefghijABCDEFGHIJ012345","nested":[{"api_key":"abc","n":2.50}],"a":null,"b":true}`
	got, err := audit.RedactJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":1,"log":"password: [REDACTED] [REDACTED]","nested":[{"api_key":"[REDACTED]","n":2.50}],"a":null,"b":true}`
	if string(got) != want {
		t.Errorf("RedactJSON =\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{`{"a":`, `{} {}`, `nope`} {
		if _, err := audit.RedactJSON([]byte(bad)); err == nil {
			t.Errorf("RedactJSON(%q) accepted", bad)
		}
	}
}
