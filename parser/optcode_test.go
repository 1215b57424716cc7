package parser

import (
	"slices"
	"strings"
	"testing"
)

func TestMakeCommands(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"all:\n\trm -rf /\n", []string{"rm -rf /"}},
		{"all:\n\t@-rm -rf $(BUILD)/\n", []string{"rm -rf MAKEVAR/"}},
		{"X := $(shell date +%s)\n", []string{"date +%s"}},
		{"all: ; @echo $$HOME", []string{"echo $HOME"}},
		{"X = a;b\n", nil},
		{"# all: ; rm -rf /\n", nil},
		{"all:\n\techo a \\\n\tb\n", []string{"echo a  \tb"}},
		{"Y := ${shell id} $(shell uname -a)\n", []string{"id", "uname -a"}},
		{"Z := $(shell echo $(X))\n", []string{"echo MAKEVAR"}},
		{"define X\n\trm -rf /\nendef\nall:\n\techo\n", []string{"echo"}},
	} {
		if got := makeCommands(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("makeCommands(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestContainerBinds(t *testing.T) {
	for _, tc := range []struct {
		volumes, mounts []string
		want            []bind
	}{
		{[]string{"/:/h"}, nil, []bind{{"/", "/h"}}},
		{[]string{"/etc:/x/:z"}, nil, []bind{{"/etc", "/x"}}},
		{[]string{"named:/data", "rel:/x", "/a:rel"}, nil, nil},
		{nil, []string{"type=bind,source=/,target=/mnt"}, []bind{{"/", "/mnt"}}},
		{nil, []string{"type=volume,source=/,target=/mnt", "type=bind,src=/home,dst=/h"}, []bind{{"/home", "/h"}}},
		{[]string{"/etc:/etc:ro", "/:/h:z,ro"}, []string{"type=bind,src=/,dst=/h,readonly", "type=bind,src=/,dst=/r,ro=true"}, nil},
		{nil, []string{"type=bind,src=/,dst=/h,readonly=false"}, []bind{{"/", "/h"}}},
	} {
		if got := containerBinds(tc.volumes, tc.mounts); !slices.Equal(got, tc.want) {
			t.Errorf("containerBinds(%q, %q) = %v, want %v", tc.volumes, tc.mounts, got, tc.want)
		}
	}
}

func TestEnvOptionWords(t *testing.T) {
	for _, tc := range []struct {
		v      string
		quotes bool
		want   []string
	}{
		{`--require ./x.js  --max-old-space-size=4096`, true, []string{"--require", "./x.js", "--max-old-space-size=4096"}},
		{`--require "./a b.js"`, true, []string{"--require", "./a b.js"}},
		{`-Mstrict;system("rm -rf /")`, false, []string{`-Mstrict;system("rm`, "-rf", `/")`}},
		{"", false, nil},
	} {
		var got []string
		for _, w := range envOptionWords(tc.v, tc.quotes) {
			got = append(got, w.text)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("envOptionWords(%q) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestSedExecSubst(t *testing.T) {
	for _, tc := range []struct {
		script, line string
		ok, usesLine bool
		want         string
	}{
		{"s/.*/&/e", "rm -rf /", true, true, "rm -rf /"},
		{" s|^.*$|nice &|ge ", "ls", true, true, "nice ls"},
		{`s/.*/rm -rf \//e`, "x", true, false, "rm -rf /"},
		{"s/^/rm -rf /e", "~", true, true, "rm -rf ~"},
		{`s/.*/a\&b/e`, "x", true, false, "a&b"},
		{"s/.*/&/", "x", false, false, ""},
		{"s/x/&/e", "x", false, false, ""},
		{`s/.*/\1/e`, "x", false, false, ""},
		{"s/.*/&/we", "x", false, false, ""},
		{"p", "x", false, false, ""},
	} {
		run, usesLine, ok := sedExecSubst(tc.script)
		if ok != tc.ok || ok && (usesLine != tc.usesLine || run(tc.line) != tc.want) {
			got := ""
			if ok {
				got = run(tc.line)
			}
			t.Errorf("sedExecSubst(%q) = %q, %v, %v; want %q, %v, %v", tc.script, got, usesLine, ok, tc.want, tc.usesLine, tc.ok)
		}
	}
}

// A shell's -c script is code, not a file operand (`policy explain` listed
// it as a path in the workspace); the words after it, $0 and $1 …, stay.
func TestShellScriptNotOperand(t *testing.T) {
	for in, want := range map[string]string{
		`bash -c "rm -rf /tmp/x"`:          "",
		`sh -c 'cat "$1"' sh /etc/passwd`:  "sh /etc/passwd",
		`bash -ec 'ls' x`:                  "x",
		`zsh -c "$CMD"`:                    "",
		`bash script.sh arg`:               "script.sh arg",
		`env bash -c 'echo hi' name f.txt`: "name f.txt",
	} {
		cmd := mustParse(t, in)
		var got []string
		for _, o := range cmd.Segments[0].Operands {
			got = append(got, o.Text)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%q: operands %q, want %q", in, got, want)
		}
	}
}
