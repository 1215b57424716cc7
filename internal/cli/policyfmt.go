package cli

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rivumi/rivumi/engine"
)

func init() {
	register("policy fmt", "report (or with -w rewrite) Rego files not in canonical form", runPolicyFmt)
	describe("policy fmt", "[-w] [PATH...]", policyFmtHelp)
}

const policyFmtHelp = `Lists the .rego files (in PATHs, directories searched recursively; default
the current directory) that are not in canonical form, as opa fmt writes it.
With -w, rewrites them.

Exit codes: 0 every file is canonical (or was rewritten), 3 some file is
not canonical, 4 a file does not parse.`

func runPolicyFmt(ctx context.Context, stdio Stdio, args []string) error {
	flags := newFlags("policy fmt", stdio)
	write := flags.Bool("w", false, "rewrite the files in canonical form")
	if err := parseFlags(flags, args); err != nil {
		return err
	}
	paths := flags.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var files, problems []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if f != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(f, ".rego") {
				files = append(files, f)
			}
			return nil
		})
		if err != nil {
			problems = append(problems, err.Error())
		}
	}
	unformatted := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		out, err := engine.FormatRego(f, src)
		if err != nil {
			problems = append(problems, policyErrorProblems(err)...)
			continue
		}
		if bytes.Equal(out, src) {
			continue
		}
		if *write {
			st, err := os.Stat(f)
			if err == nil {
				err = os.WriteFile(f, out, st.Mode().Perm())
			}
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			fmt.Fprintf(stdio.Out, "formatted %s\n", f)
			continue
		}
		unformatted++
		fmt.Fprintln(stdio.Out, f)
	}
	switch {
	case len(problems) > 0:
		return exitf(ExitPolicyError, "policy fmt:\n%s", strings.Join(problems, "\n"))
	case unformatted > 0:
		return exitf(ExitTestFailed, "policy fmt: %s not in canonical form (rivumi policy fmt -w rewrites them)", plural(unformatted, "file"))
	}
	return nil
}
