package audit

import (
	"regexp"
	"slices"
	"strings"

	"github.com/rivumi/rivumi/internal/lazyre"
)

// Redacted replaces every secret that [Redact] finds.
const Redacted = "[REDACTED]"

// A detector recognises one kind of credential. Replace rewrites every
// match; a nil replace substitutes [Redacted] for the whole match.
//
// needs are strings of which every match of re holds one (fold: in ASCII
// letters of either case, as re is case-insensitive): a text without any
// of them is not run through re, which is where Redact spent its time
// (an audit entry's fields hold none, mostly; TestRedactPrefilter and
// FuzzRedactPrefilter keep the answers those of the bare expressions).
type detector struct {
	kind    string
	re      func() *regexp.Regexp // compiled on first use
	replace func(m string) string
	needs   []string
	fold    bool
	// names, when set, are strings of which every secret name holds one
	// (in ASCII letters of either case): a text without any of them has
	// no match that replace rewrites, so it is not run through re.
	names []string
}

// mayMatch reports whether s holds one of d.needs: false means re finds
// nothing in s. A case-insensitive expression also folds non-ASCII
// letters onto ASCII ones (U+017F onto s, U+212A onto k): such a text
// is always run through it.
func (d *detector) mayMatch(s string) bool {
	if len(d.needs) == 0 {
		return true
	}
	if d.fold {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return true
			}
		}
		s = strings.ToLower(s)
	}
	for _, n := range d.needs {
		if strings.Contains(s, n) {
			return len(d.names) == 0 || holdsName(s, d.names)
		}
	}
	return false
}

// holdsName reports whether s, lowercased, holds one of names.
func holdsName(s string, names []string) bool {
	s = strings.ToLower(s)
	for _, n := range names {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// secretNameParts are strings of which every name [secretName] accepts
// holds one: each of secretSubstrings, secretComponents and the second
// word of secretPairs holds one of them.
var secretNameParts = []string{"token", "secret", "pass", "credential", "key", "pwd", "auth", "pat", "cookie"}

// keep returns a replacement that keeps the submatches before group n and
// redacts group n.
func keep(re func() *regexp.Regexp, n int) func(string) string {
	return func(m string) string {
		sub := re().FindStringSubmatch(m)
		return strings.Join(sub[1:n], "") + Redacted
	}
}

var (
	pemKey    = lazyre.New(`-----BEGIN[ A-Z0-9]*PRIVATE KEY-----(?s:.*?)(?:-----END[ A-Z0-9]*PRIVATE KEY-----|$)`)
	headers   = lazyre.New(`(?i)\b((?:proxy-)?authorization|x-api-key|api-key|x-auth-token|private-token|cookie|set-cookie)(\s*:\s*)[^\r\n'"]+`)
	schemes   = lazyre.New(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\-]{8,}`)
	urlCreds  = lazyre.New(`(?i)\b([a-z][a-z0-9+.\-]*://[^/\s:@]*)(:)[^@\s/]+@`)
	awsSecret = lazyre.New(`(?i)\b((?:aws_)?secret_access_key|aws_secret_key|aws_session_token)("?\s*[:=]\s*"?)[A-Za-z0-9/+=]{16,}`)
	npmAuth   = lazyre.New(`(:_authToken=)[^\s'"]+`)
	azureKey  = lazyre.New(`(?i)\b(AccountKey=|SharedAccessSignature=)[^;\s'"]{20,}`)
	// name=value where the name looks secret (decided by secretName).
	assignment = lazyre.New(`([A-Za-z0-9_.\-]+)(=)("[^"]*"|'[^']*'|[^\s&;'"]+)`)
	// "name": "value" and name: value (JSON, YAML) where the name looks secret.
	// The key starts a line or follows a blank, '{', '[' or ','.
	// The value is quoted, or unquoted up to the end of the line (YAML):
	// `Token: token,` in source code is not a secret.
	keyValue = lazyre.New(`(?m)(^|[\s{\[,])("?)([A-Za-z0-9_.\-]+)("?[ \t]*:[ \t]*)("[^"\r\n]*"|'[^'\r\n]*'|[^\s,'"}\]]+[ \t]*$)`)
)

// detectors in the order they run: the longest, most specific shapes first,
// so that a PEM block or a URL is redacted whole. Each expression compiles
// on the first text that holds one of its needs, not at every start of
// every rivumi process.
var detectors = []detector{
	{kind: "private-key", re: pemKey, needs: []string{"-----BEGIN"}},
	{kind: "github-token", re: lazyre.New(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}`), needs: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}},
	{kind: "github-token", re: lazyre.New(`\bgithub_pat_[A-Za-z0-9_]{16,}`), needs: []string{"github_pat_"}},
	{kind: "anthropic-key", re: lazyre.New(`\bsk-ant-[A-Za-z0-9_\-]{8,}`), needs: []string{"sk-ant-"}},
	{kind: "openai-key", re: lazyre.New(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}`), needs: []string{"sk-"}},
	{kind: "stripe-key", re: lazyre.New(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`), needs: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"}},
	{kind: "aws-access-key-id", re: lazyre.New(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b`), needs: []string{"AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"}},
	{kind: "aws-secret-key", re: awsSecret, replace: keep(awsSecret, 3), fold: true, needs: []string{"secret_access_key", "aws_secret_key", "aws_session_token"}},
	{kind: "slack-token", re: lazyre.New(`\bxox[abposre]-[A-Za-z0-9\-]{8,}`), needs: []string{"xox"}},
	{kind: "slack-webhook", re: lazyre.New(`https://hooks\.slack\.com/services/[A-Za-z0-9/]{16,}`), needs: []string{"https://hooks.slack.com/services/"}},
	{kind: "gitlab-token", re: lazyre.New(`\bglpat-[A-Za-z0-9_\-]{16,}`), needs: []string{"glpat-"}},
	{kind: "google-api-key", re: lazyre.New(`\bAIza[0-9A-Za-z_\-]{30,}`), needs: []string{"AIza"}},
	{kind: "npm-token", re: lazyre.New(`\bnpm_[A-Za-z0-9]{30,}`), needs: []string{"npm_"}},
	{kind: "npm-token", re: npmAuth, replace: keep(npmAuth, 2), needs: []string{":_authToken="}},
	{kind: "huggingface-token", re: lazyre.New(`\bhf_[A-Za-z0-9]{30,}`), needs: []string{"hf_"}},
	// The shapes of gitleaks' rules of the same names (github.com/gitleaks/gitleaks, config/gitleaks.toml).
	{kind: "digitalocean-token", re: lazyre.New(`\bdo[opr]_v1_[a-f0-9]{64}\b`), needs: []string{"dop_v1_", "doo_v1_", "dor_v1_"}},
	{kind: "sendgrid-api-token", re: lazyre.New(`\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}`), needs: []string{"SG."}},
	{kind: "twilio-api-key", re: lazyre.New(`\bSK[0-9a-fA-F]{32}\b`), needs: []string{"SK"}},
	{kind: "azure-storage-key", re: azureKey, replace: keep(azureKey, 2), fold: true, needs: []string{"accountkey=", "sharedaccesssignature="}},
	{kind: "pypi-upload-token", re: lazyre.New(`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}`), needs: []string{"pypi-AgEIcHlwaS5vcmc"}},
	{kind: "docker-pat", re: lazyre.New(`\bdckr_pat_[A-Za-z0-9_\-]{20,}`), needs: []string{"dckr_pat_"}},
	{kind: "shopify-token", re: lazyre.New(`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`), needs: []string{"shpat_", "shpca_", "shppa_", "shpss_"}},
	{kind: "age-secret-key", re: lazyre.New(`\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`), needs: []string{"AGE-SECRET-KEY-1"}},
	{kind: "vault-token", re: lazyre.New(`\bhv[sbr]\.[A-Za-z0-9_\-]{24,}`), needs: []string{"hvs.", "hvb.", "hvr."}},
	{kind: "mailgun-key", re: lazyre.New(`\bkey-[0-9a-f]{32}\b`), needs: []string{"key-"}},
	{kind: "jwt", re: lazyre.New(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`), needs: []string{"eyJ"}},
	{kind: "auth-header", re: headers, replace: keep(headers, 3), fold: true, needs: []string{"authorization", "api-key", "x-auth-token", "private-token", "cookie"}},
	{kind: "auth-scheme", re: schemes, replace: keep(schemes, 3), fold: true, needs: []string{"bearer", "basic"}},
	{kind: "url-credentials", re: urlCreds, needs: []string{"://"}, replace: func(m string) string {
		sub := urlCreds().FindStringSubmatch(m)
		return sub[1] + sub[2] + Redacted + "@"
	}},
	{kind: "secret-assignment", re: assignment, needs: []string{"="}, names: secretNameParts, replace: func(m string) string {
		sub := assignment().FindStringSubmatch(m)
		v := strings.TrimRight(strings.Trim(sub[3], `"'`), ",)]}")
		// api_key=api_key passes a variable on (Python keywords, shell).
		if !secretName(sub[1]) || v == Redacted || strings.EqualFold(v, sub[1]) {
			return m
		}
		return sub[1] + sub[2] + Redacted
	}},
	{kind: "secret-assignment", re: keyValue, needs: []string{":"}, names: secretNameParts, replace: func(m string) string {
		sub := keyValue().FindStringSubmatch(m)
		v := strings.TrimSpace(strings.Trim(sub[5], `"'`))
		if !secretName(sub[3]) || v == "" || strings.Contains(m, Redacted[:len(Redacted)-1]) {
			return m
		}
		return sub[1] + sub[2] + sub[3] + sub[4] + Redacted
	}},
}

// Redact returns s with the secrets it recognises replaced by [Redacted].
// It is the one redactor of rivumi: audit entries, command output, tool
// results and run bundles all pass through it. Redaction is best effort:
// it catches the common shapes (see [Scan] for the list), not every secret.
func Redact(s string) string {
	if s == "" {
		return s
	}
	for i := range detectors {
		if d := &detectors[i]; d.mayMatch(s) {
			s = d.replaceAll(s)
		}
	}
	return s
}

func (d *detector) replaceAll(s string) string {
	if d.replace == nil {
		return d.re().ReplaceAllLiteralString(s, Redacted)
	}
	return d.re().ReplaceAllStringFunc(s, d.replace)
}

// Finding is one secret [Scan] found: its kind ("github-token",
// "aws-secret-key", "private-key", …) and the 1-based line it starts on.
// The secret itself is never part of a Finding.
type Finding struct {
	Kind string `json:"kind"`
	Line int    `json:"line"`
}

// Scan reports the secrets in s that [Redact] would replace, in the order
// of their lines (and, on one line, of the detectors). Kinds: private-key,
// github-token, anthropic-key, openai-key, stripe-key, aws-access-key-id,
// aws-secret-key, slack-token, slack-webhook, gitlab-token, google-api-key,
// npm-token, huggingface-token, digitalocean-token, sendgrid-api-token,
// twilio-api-key, azure-storage-key, pypi-upload-token, docker-pat,
// shopify-token, age-secret-key, vault-token, mailgun-key, jwt,
// auth-header, auth-scheme, url-credentials, secret-assignment.
func Scan(s string) []Finding {
	var out []Finding
	for i := range detectors {
		d := &detectors[i]
		if !d.mayMatch(s) {
			continue // as in Redact: without one of its needs it cannot match
		}
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
		// Later detectors must not see what this one found again.
		if d.replace == nil {
			s = d.re().ReplaceAllLiteralString(s, Redacted)
		} else {
			s = d.re().ReplaceAllStringFunc(s, d.replace)
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Line - b.Line })
	return out
}

// RedactArgv redacts each argument with [Redact] and, after an option that
// takes a secret as its next argument (--password VALUE, --token VALUE,
// curl's -u USER:PASS), that argument too. It returns a new slice.
func RedactArgv(argv []string) []string {
	if argv == nil {
		return nil
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = Redact(a)
		if i == 0 {
			continue
		}
		prev := argv[i-1]
		switch {
		case strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") && secretName(strings.TrimLeft(prev, "-")):
			out[i] = Redacted
		case (prev == "-u" || prev == "--user" || prev == "--proxy-user") && strings.Contains(a, ":"):
			user, _, _ := strings.Cut(a, ":")
			out[i] = user + ":" + Redacted
		}
	}
	return out
}

// Words that make a name secret wherever they appear in it (PGPASSWORD,
// GITHUB_TOKEN, client_secret), and words that do only as a whole
// component (MYSQL_PWD, NPM_AUTH, but not "author").
var (
	secretSubstrings = []string{"token", "secret", "password", "passwd", "passphrase", "credential", "apikey", "privatekey", "accesskey"}
	secretComponents = map[string]bool{"pwd": true, "pass": true, "auth": true, "pat": true, "cookie": true, "key": false}
	secretPairs      = [][2]string{{"api", "key"}, {"access", "key"}, {"private", "key"}, {"secret", "key"}, {"signing", "key"}, {"session", "key"}, {"client", "secret"}}
)

// secretName reports whether an option or variable name looks like it
// holds a secret.
func secretName(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	// The shell's working directories, not a MySQL password.
	if n == "" || n == "pwd" || n == "oldpwd" {
		return false
	}
	for _, w := range secretSubstrings {
		if strings.Contains(n, w) {
			return true
		}
	}
	parts := strings.FieldsFunc(n, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for i, p := range parts {
		if secretComponents[p] {
			return true
		}
		if i > 0 {
			for _, pair := range secretPairs {
				if parts[i-1] == pair[0] && p == pair[1] {
					return true
				}
			}
		}
	}
	return false
}
