package audit

import (
	"strings"
	"testing"
)

// One real-looking fake per credential format: redacted, and found by
// Scan with its kind; not a fragment of the secret left.
func TestRedactCredentialFormats(t *testing.T) {
	hex64 := strings.Repeat("0a1b2c3d", 8)
	hex32 := strings.Repeat("9f8e7d6c", 4)
	age := "AGE-SECRET-KEY-1" + strings.Repeat("QPZRY9X8GF", 5) + "2TVDW0S3"
	for _, c := range []struct{ kind, text, secret string }{
		{"digitalocean-token", "DO=dop_v1_" + hex64, "dop_v1_" + hex64},
		{"sendgrid-api-token", "sg 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", "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"},
		{"twilio-api-key", "twilio SK" + hex32 + " end", "SK" + hex32},
		{"azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net", "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6"},
		{"pypi-upload-token", "password = pypi-AgEIcHlwaS5vcmcCJDU3OTM5ZjFlLTk2ZTEtNDcwNi1hYzJlLWE1OWZhYjY3ZjY3MQACKlsz", "pypi-AgEIcHlwaS5vcmcCJDU3OTM5ZjFlLTk2ZTEt"},
		{"docker-pat", "docker login -p dckr_pat_2b3e36beeb386dfdaacb9b46004ccb7c", "dckr_pat_2b3e36beeb386dfdaacb9b46004ccb7c"},
		{"shopify-token", "X-Shop: shpat_" + hex32, "shpat_" + hex32},
		{"age-secret-key", "# key\n" + age, age},
		{"vault-token", "VAULT hvs.CAESIJlU9JMYEhOPYv4igdhm9PnZDrabYTobQ4Ymnlq1qY-LGh4KHGh2cy", "hvs.CAESIJlU9JMYEhOPYv4igdhm9PnZDrabYTobQ4Ymnlq1qY"},
		{"mailgun-key", "api key-" + hex32, "key-" + hex32},
		{"stripe-key", "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
		{"npm-token", "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"},
		{"huggingface-token", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
		{"slack-webhook", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "XXXXXXXXXXXXXXXXXXXXXXXX"},
		{"private-key", `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n", "client_email": "x@p.iam.gserviceaccount.com"}`, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"},
		{"secret-assignment", `{"private_key_id": "8c1f3ad1e2b4c5d6e7f8091a2b3c4d5e6f7a8b9c"}`, "8c1f3ad1e2b4c5d6e7f8091a2b3c4d5e6f7a8b9c"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			got := Redact(c.text)
			if strings.Contains(got, c.secret) || !strings.Contains(got, Redacted) {
				t.Errorf("Redact(%q) = %q", c.text, got)
			}
			found := false
			for _, f := range Scan(c.text) {
				found = found || f.Kind == c.kind
			}
			if !found {
				t.Errorf("Scan(%q) = %v, want a %s", c.text, Scan(c.text), c.kind)
			}
		})
	}
}

// Ordinary text is left alone: the shell's working directories, hashes in
// lock files, commit ids, UUIDs, prose.
func TestRedactLeavesOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"PWD=/home/x", "OLDPWD=/home/x/src", "export PWD=/work/main",
		`"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="`,
		"github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=",
		`checksum = "b9d4a2f1c8e7d6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1"`,
		"commit 2fd3920a1b2c3d4e5f60718293a4b5c6d7e8f901",
		"id 123e4567-e89b-12d3-a456-426614174000",
		"the key-value store skips SKIPPED tests", "SG. Pepper", "ask the hvs. team",
	} {
		if got := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q", s, got)
		}
	}
}
