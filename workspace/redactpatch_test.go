package workspace_test

import (
	"testing"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/workspace"
)

// RedactPatch redacts a diff as audit.Redact redacts it whole: secrets of
// many kinds on added, removed and context lines, a private key block
// (ended, and one that never ends), and ordinary code left alone.
func TestRedactPatchAsWhole(t *testing.T) {
	const pem = "-----BEGIN RSA PRIVATE KEY-----\n+MIIEowIBAAKCAQEA0123456789\n+abcdefABCDEF0123456789\n+-----END RSA PRIVATE KEY-----\n"
	tests := map[string]string{
		"tokens": "diff --git a/a.env b/a.env\n--- a/a.env\n+++ b/a.env\n@@ -1,3 +1,4 @@\n GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345\n" +
			"-password: hunter2\n+api_key = \"sk-proj-0123456789abcdef0123\"\n+curl -H 'Authorization: Bearer abcdefghijkl' https://user:pass@example.com/x\n",
		"key block":      "--- /dev/null\n+++ b/k.pem\n@@ -0,0 +1,4 @@\n+" + pem + " after\n",
		"two key blocks": "+" + pem + "+x := 1\n+" + pem,
		"unended key":    "+-----BEGIN EC PRIVATE KEY-----\n+abc\n+def\n x := 1\n",
		"no newline":     "+token=abcdefghijklmnop",
		"code":           bigPatch(1)[:200000],
	}
	for name, p := range tests {
		if got, want := string(workspace.RedactPatch(p)), audit.Redact(p); got != want {
			t.Errorf("%s:\nRedactPatch %.400q\naudit.Redact %.400q", name, got, want)
		}
	}
}
