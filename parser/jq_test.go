package parser

import (
	"slices"
	"strings"
	"testing"
)

func TestJqCommandLine(t *testing.T) {
	opts := []Option{Workspace("/w/proj"), Home("/home/u"), Cwd("/w/proj")}
	tests := []struct {
		in       string
		flags    string // space-separated, in order
		operands string // operand texts
		reads    string // read texts besides the operands
		code     string // the filter ("" for none)
		safe     bool
		tags     string // tags that must be present
		notTags  string // tags that must be absent
	}{
		{in: "jq . f.json", operands: "f.json", code: ".", safe: true, notTags: "code-unsafe secret-env"},
		{in: "jq -nr '$ENV.X'", flags: "null-input raw-output", code: "$ENV.X", tags: "code-unsafe secret-env"},
		{in: "jq --arg x 1 '$ENV.T' f", flags: "arg", operands: "f", code: "$ENV.T", tags: "secret-env"},
		{in: "jq --argjson x '{}' --arg y z .a a b", flags: "argjson arg", operands: "a b", code: ".a", safe: true},
		{in: "jq . a.json -r b.json", flags: "raw-output", operands: "a.json b.json", code: ".", safe: true},
		{in: "jq -n --rawfile k /home/u/.ssh/id_rsa '$k'", flags: "null-input rawfile", reads: "/home/u/.ssh/id_rsa", code: "$k", safe: true},
		{in: "jq --slurpfile d d.json --argfile e e.json -n '$d'", flags: "slurpfile argfile null-input", reads: "d.json e.json", code: "$d", safe: true},
		{in: "jq -f prog.jq in.json", flags: "from-file", operands: "in.json", reads: "prog.jq", code: "-f prog.jq", tags: "code-unsafe script-file"},
		{in: "jq -nf prog.jq", flags: "null-input from-file", reads: "prog.jq", code: "-f prog.jq", tags: "script-file"},
		{in: "jq -L /opt/lib -n .", flags: "library-path null-input", reads: "/opt/lib", code: ".", safe: true},
		{in: "jq -L/opt/lib .", flags: "library-path", reads: "/opt/lib", code: ".", safe: true},
		{in: "jq -nL /opt/lib .", flags: "null-input library-path", reads: "/opt/lib", code: ".", safe: true},
		{in: "jq --library-path /opt/lib .", flags: "library-path", reads: "/opt/lib", code: ".", safe: true},
		{in: "jq --indent 3 . f", flags: "indent", operands: "f", code: ".", safe: true},
		{in: "jq -n '$ARGS' --args a /home/u/.ssh/id_rsa", flags: "null-input args", code: "$ARGS", safe: true},
		{in: "jq -n '$ARGS' f.json --jsonargs 1 2", flags: "null-input jsonargs", operands: "f.json", code: "$ARGS", safe: true},
		{in: "jq -- -1 f", operands: "f", code: "-1", safe: true},
		{in: "jq -1 f", operands: "f", code: "-1", safe: true}, // "-" then a digit is no option
		{in: "jq -x .", flags: "x", code: ".", safe: true},
		{in: "jq", code: ""},
		{in: "jq -n", flags: "null-input", code: ""},
		{in: "xargs jq -n", flags: "null-input", code: "", tags: "dynamic-code appended-args"},
		{in: "xargs jq . ", code: ".", safe: true, tags: "appended-args"},
		{in: "jq \"$F\" f", operands: "f", code: `"$F"`, tags: "dynamic-code"},
		{in: "jq .[] f", operands: "f", code: ".[]", safe: true},
		{in: "jq .items[].name f", operands: "f", code: ".items[].name", safe: true},
		{in: "jq .[0] f", operands: "f", code: ".[0]", tags: "dynamic-code"},
		{in: "jq .a? f", operands: "f", code: ".a?", tags: "dynamic-code"},
		{in: "jq '$EN'? f", operands: "f", code: "$EN?", tags: "dynamic-code"},
		{in: "jq '.[0]' f", operands: "f", code: ".[0]", safe: true},
		{in: "jq -n 'import \"a/b\" as $c; $c'", flags: "null-input", code: `import "a/b" as $c; $c`, tags: "code-unsafe",
			reads: "./a/b.json ./a/b.jq ./a/b/b.jq ~/.jq/a/b.json ~/.jq/a/b.jq ~/.jq/a/b/b.jq"},
		{in: "jq -n 'include \"m\" {search: \"/s\"}; .'", flags: "null-input", code: `include "m" {search: "/s"}; .`, tags: "code-unsafe",
			reads: "./m.json ./m.jq ./m/m.jq ~/.jq/m.json ~/.jq/m.jq ~/.jq/m/m.jq /s/m.json /s/m.jq /s/m/m.jq"},
		{in: "gojq -n 'env.X'", flags: "null-input", code: "env.X", tags: "secret-env code-unsafe"},
		{in: "jq --run-tests t.txt", flags: "run-tests", reads: "t.txt", code: "--run-tests t.txt", tags: "code-unsafe script-file"},
	}
	for _, tt := range tests {
		s := mustParse(t, tt.in, opts...).Segments[0]
		var ops, reads []string
		for _, o := range s.Operands {
			ops = append(ops, o.Text)
		}
		for _, r := range s.Reads {
			if !slices.Contains(ops, r.Text) {
				reads = append(reads, r.Text)
			}
		}
		code, safe := "", false
		for _, c := range s.Code {
			if c.Lang == "jq" {
				code, safe = c.Text, c.Safe
			}
		}
		flags := slices.Clone(s.Flags)
		slices.Sort(flags)
		wantFlags := strings.Fields(tt.flags)
		slices.Sort(wantFlags)
		if got := strings.Join(flags, " "); got != strings.Join(wantFlags, " ") {
			t.Errorf("%q: flags %q, want %q", tt.in, got, tt.flags)
		}
		if got := strings.Join(ops, " "); got != tt.operands {
			t.Errorf("%q: operands %q, want %q", tt.in, got, tt.operands)
		}
		slices.Sort(reads)
		want := strings.Fields(tt.reads)
		slices.Sort(want)
		if !slices.Equal(reads, want) {
			t.Errorf("%q: reads %q, want %q", tt.in, reads, want)
		}
		if code != tt.code || safe != tt.safe {
			t.Errorf("%q: code %q safe=%v, want %q safe=%v", tt.in, code, safe, tt.code, tt.safe)
		}
		for _, tag := range strings.Fields(tt.tags) {
			if !s.HasTag(tag) {
				t.Errorf("%q: no tag %s (tags %v)", tt.in, tag, s.Tags)
			}
		}
		for _, tag := range strings.Fields(tt.notTags) {
			if s.HasTag(tag) {
				t.Errorf("%q: tag %s (tags %v)", tt.in, tag, s.Tags)
			}
		}
	}
}

func TestJqHomeInWorkspace(t *testing.T) {
	// jq loads $HOME/.jq into every program: a workspace file when the home
	// is the workspace or inside it.
	for _, home := range []string{"/w/proj", "/w/proj/home"} {
		s := mustParse(t, "jq keys f.json", Workspace("/w/proj"), Home(home), Cwd("/w/proj")).Segments[0]
		if len(s.Code) != 1 || s.Code[0].Safe || !s.HasTag(TagCodeUnsafe) {
			t.Errorf("home %s: code %+v tags %v, want an unsafe filter", home, s.Code, s.Tags)
		}
	}
	s := mustParse(t, "jq keys f.json", Workspace("/w/proj"), Home("/home/u"), Cwd("/w/proj")).Segments[0]
	if len(s.Code) != 1 || !s.Code[0].Safe {
		t.Errorf("home outside: code %+v, want a safe filter", s.Code)
	}
}

func TestYqOperands(t *testing.T) {
	for in, want := range map[string]string{
		"yq '.a' f.yaml":          "f.yaml",
		"yq e '.a' f.yaml g.yaml": "f.yaml g.yaml",
		"yq -i '.a = 1' f.yaml":   "f.yaml",
		"yq -n '.a'":              "",
		"yq":                      "",
	} {
		s := mustParse(t, in).Segments[0]
		var got []string
		for _, o := range s.Operands {
			got = append(got, o.Text)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%q: operands %q, want %q", in, got, want)
		}
	}
	s := mustParse(t, "yq -i '.a = 1' f.yaml").Segments[0]
	if len(s.Writes) != 1 || s.Writes[0].Text != "f.yaml" {
		t.Errorf("yq -i: writes %+v, want f.yaml", s.Writes)
	}
}

func TestYqEnv(t *testing.T) {
	for in, want := range map[string]string{
		"yq '.a' f.yaml":              "",
		"yq '.env' f.yaml":            "",
		"yq e -n 'env(GITHUB_TOKEN)'": TagSecretEnv,
		"yq eval-all '$ENV' a.yaml":   TagSecretEnv,
		"yq ea '.' a.yaml":            "",
		"yq '.a | to_yaml' f.yaml":    "",
		"yq -n 'env(X)'":              TagSecretEnv,
		"yq '$ ENV.X' f":              TagSecretEnv,
		"yq -n 'load(\"/x\")'":        TagSecretEnv + " " + TagCodeUnsafe,
		"yq -n 'load_xml(\"/x\")'":    TagCodeUnsafe,
		"yq '.a | eval(.b)' f":        TagCodeUnsafe,
		"yq -n 'import \"a\" as $a'":  TagCodeUnsafe,
	} {
		s := mustParse(t, in).Segments[0]
		for _, tag := range []string{TagSecretEnv, TagCodeUnsafe} {
			if s.HasTag(tag) != slices.Contains(strings.Fields(want), tag) {
				t.Errorf("%q: tags %v, want %q among secret-env/code-unsafe", in, s.Tags, want)
			}
		}
	}
}

// BenchmarkParseJq measures parsing a typical jq command (the filter's
// analysis included).
func BenchmarkParseJq(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(`jq -r '.[] | select(.a > 1) | .name' f.json`); err != nil {
			b.Fatal(err)
		}
	}
}
