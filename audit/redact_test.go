package audit_test

import (
	"slices"
	"testing"

	"github.com/rivumi/rivumi/audit"
)

func TestRedact(t *testing.T) {
	const R = audit.Redacted
	tests := []struct{ in, want string }{
		{"ls -la", "ls -la"},
		{"ghp_0123456789abcdefghijABCDEFGHIJ012345", R},
		{"token gho_0123456789abcdefghij0123", "token " + R},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnop", R},
		{"sk-proj-0123456789abcdefABCDEF", R},
		{"sk-ant-api03-0123456789abcdef", R},
		{"AKIAIOSFODNN7EXAMPLE", R},
		{"xoxb-123456789012-abcdefghij", R},
		{"glpat-0123456789abcdefghij", R},
		{"AIzaSyA0123456789abcdefghijklmnopqrstuv", R},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----", R},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEow (cut", R},
		{"TOKEN=abc123", "TOKEN=" + R},
		{"GITHUB_TOKEN=abc123 make", "GITHUB_TOKEN=" + R + " make"},
		{"PGPASSWORD='x y' psql", "PGPASSWORD=" + R + " psql"},
		{"MYSQL_PWD=hunter2", "MYSQL_PWD=" + R},
		{"AWS_SECRET_ACCESS_KEY=abc", "AWS_SECRET_ACCESS_KEY=" + R},
		{"--password=hunter2", "--password=" + R},
		{"--api-key=abc", "--api-key=" + R},
		{"Authorization: Basic dXNlcjpwYXNz", "Authorization: " + R},
		{"authorization:token abc", "authorization:" + R},
		{"curl -H 'X-Api-Key: abc' https://x", "curl -H 'X-Api-Key: " + R + "' https://x"},
		{"Bearer abcdefghijkl", "Bearer " + R},
		{"https://user:hunter2@example.com/x", "https://user:" + R + "@example.com/x"},
		// Not secrets.
		{"author=bob", "author=bob"},
		{"sort --key=2", "sort --key=2"},
		{"task-0123456789abcdefghij", "task-0123456789abcdefghij"},
		{"PATH=/usr/bin", "PATH=/usr/bin"},
	}
	for _, tt := range tests {
		if got := audit.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactArgv(t *testing.T) {
	const R = audit.Redacted
	tests := []struct{ in, want []string }{
		{[]string{"mysql", "--password", "hunter2", "db"}, []string{"mysql", "--password", R, "db"}},
		{[]string{"gh", "--token", "abc"}, []string{"gh", "--token", R}},
		{[]string{"curl", "-u", "me:hunter2", "https://x"}, []string{"curl", "-u", "me:" + R, "https://x"}},
		{[]string{"env", "API_KEY=abc", "cmd"}, []string{"env", "API_KEY=" + R, "cmd"}},
		{[]string{"git", "log", "--author", "bob"}, []string{"git", "log", "--author", "bob"}},
	}
	for _, tt := range tests {
		if got := audit.RedactArgv(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("RedactArgv(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
