package parser

import "testing"

// A command handed the paths find prints carries find's roots and the tag
// listed-args; anything that lets other words through does not.
func TestListedArgs(t *testing.T) {
	for _, tc := range []struct {
		cmd   string
		want  bool
		class string // of the root operand added, when tagged
	}{
		{"find . -name '*.py' | xargs grep -l x", true, ClassWorkspace},
		{"find src /etc/x -type f | xargs cat", true, ClassSystem},
		{"find . -print0 | xargs -0 wc -l", true, ClassWorkspace},
		{"find . -print0 | xargs --null wc -l", true, ClassWorkspace},
		{"find ~/x | xargs cat", true, ClassHomeSub},
		{"find | xargs cat", true, ClassWorkspace},
		{"find . | grep -v test | head -3 | xargs cat", true, ClassWorkspace},
		{"find . -exec grep -l x {} \\;", true, ClassWorkspace},
		{"find . -exec wc -l {} +", true, ClassWorkspace},
		{"find . | xargs wc -l", false, ""},       // split paths may become wc options
		{"find . | xargs -I{} cat {}", false, ""}, // -I
		{"find . | xargs -d / cat", false, ""},    // -d
		{"find . | xargs cat \"$X\"", false, ""},  // a dynamic word of its own
		{"find . -printf '%f\\n' | xargs cat", false, ""},
		{"find . -exec cat {} \\; | xargs cat", false, ""},
		{"find \"$D\" | xargs cat", false, ""},
		{"./find . | xargs cat", false, ""},
		{"ls | xargs cat", false, ""},
		{"find . | grep -r x | xargs cat", false, ""},
		{"find . | grep -l x | xargs cat", false, ""},
		{"find . | sort -o out | xargs cat", false, ""},
		{"find . -exec cat x{} \\;", false, ""},
		{"find . -exec cat {} \"$X\" \\;", false, ""},
		{"find a b -exec cat {} \\;", false, ""}, // {} of several roots is not classed
		{"find -L . | xargs cat", false, ""},
		{"find -P ~/.claude | xargs cat", true, ClassAgentConfig}, // the root after -P
		{"find -H -O2 -D tree ~/x -exec cat {} +", true, ClassHomeSub},
		{"find . -follow -exec cat {} +", false, ""},
		{"find -L . -exec cat {} +", false, ""},
	} {
		cmd, err := Parse(tc.cmd, Cwd("/home/dev/proj"), Workspace("/home/dev/proj"), Home("/home/dev"))
		if err != nil {
			t.Fatal(err)
		}
		var got *Segment // the command run last: the consumer
		if s := cmd.Segments[len(cmd.Segments)-1]; s.HasTag(TagListedArgs) {
			got = s
		}
		if (got != nil) != tc.want {
			t.Errorf("%q: listed-args %v, want %v", tc.cmd, got != nil, tc.want)
			continue
		}
		if got == nil {
			continue
		}
		last := got.Operands[len(got.Operands)-1]
		if last.Class != tc.class || !last.Dynamic {
			t.Errorf("%q: root operand %+v, want class %q, dynamic", tc.cmd, last, tc.class)
		}
	}
}

// A glob in a middle part is classed as its directory with the literal
// parts after it; one that can match hidden names is not classed.
func TestMiddleGlobClass(t *testing.T) {
	for _, tc := range []struct{ path, class string }{
		{"pkg/*/x.py", ClassWorkspace},
		{"pkg/*/tests/test_*.py", ClassWorkspace},
		{"pkg/?/x", ClassWorkspace},
		{"pkg/*/.env", ClassSecret},
		{"pkg/*/.git/config", ClassGit},
		{"pkg/*/conftest.py", ClassWorkspace}, // pytest asks when it loads it
		{"pkg/*/mise.local.toml", ClassProjectCode},
		{"pkg/.*/x", ClassDynamic},
		{"pkg/*/.e*", ClassDynamic},
		{"pkg/[ab]/x", ClassDynamic},
		{"/*/x", ClassRoot},
		{"~/*/x", ClassHome},
		{"/tmp/*/x", ClassTmp},
	} {
		e := pathEnv{workspace: "/home/dev/proj", home: "/home/dev", cwd: "/home/dev/proj"}
		if _, c := e.classify(tc.path, true); c != tc.class {
			t.Errorf("%q: class %q, want %q", tc.path, c, tc.class)
		}
	}
}

// A narrow glob matching a name with a class of its own takes that class.
func TestGlobMatchingSpecialNames(t *testing.T) {
	for _, tc := range []struct{ path, class string }{
		{"*.pem", ClassSecret},
		{"keys/id_*", ClassSecret},
		{"*.env", ClassSecret},
		{"*.md", ClassInstructions},
		{"C*.md", ClassInstructions},
		{"tests/*.py", ClassWorkspace}, // conftest.py: pytest asks when it loads it
		{".config/mise/conf*.toml", ClassProjectCode},
		{"*.pyc", ClassWorkspace},
		{"*", ClassWorkspace},
		{"*.*", ClassWorkspace},
		{"/tmp/*.pem", ClassSecret},
		{"docs/[a-c]*.md", ClassInstructions}, // agents.md, claude.md
		{"[!.]*", ClassAgentConfig},           // any name: mise.toml, credentials, id_rsa …
	} {
		e := pathEnv{workspace: "/home/dev/proj", home: "/home/dev", cwd: "/home/dev/proj"}
		if _, c := e.classify(tc.path, true); c != tc.class {
			t.Errorf("%q: class %q, want %q", tc.path, c, tc.class)
		}
	}
}

// A glob stricter for writes than for reads keeps the secret class too.
func TestGlobKeepsSecretClass(t *testing.T) {
	cmd, err := Parse("cat [!.]*", Cwd("/home/dev/proj"), Workspace("/home/dev/proj"), Home("/home/dev"))
	if err != nil {
		t.Fatal(err)
	}
	if r := cmd.Segments[0].Reads[0]; r.LinkClass != ClassSecret {
		t.Errorf("reads %+v, want link_class secret", r)
	}
}

// A find whose pattern names secrets hands over paths read as secrets.
func TestListedSecrets(t *testing.T) {
	for _, tc := range []struct {
		cmd    string
		secret bool
	}{
		{"find . -name '*.pem' | xargs cat", true},
		{"find . -iname 'ID_RSA' -exec cat {} +", true},
		{"find . -name .env -print0 | xargs -0 cat", true},
		{"find . -name '*.py' | xargs cat", false},
		{"find . -name '*' -exec cat {} +", false},
	} {
		cmd, err := Parse(tc.cmd, Cwd("/home/dev/proj"), Workspace("/home/dev/proj"), Home("/home/dev"))
		if err != nil {
			t.Fatal(err)
		}
		s := cmd.Segments[len(cmd.Segments)-1]
		root := s.Operands[len(s.Operands)-1]
		if got := root.LinkClass == ClassSecret; got != tc.secret || !s.HasTag(TagListedArgs) {
			t.Errorf("%q: root %+v tags %v, want secret %v", tc.cmd, root, s.Tags, tc.secret)
		}
	}
}
