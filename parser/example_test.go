package parser_test

import (
	"fmt"

	"github.com/rivumi/rivumi/parser"
)

func ExampleParse() {
	cmd, err := parser.Parse(`sudo env FOO=1 bash -c 'cd /; rm -rf "$HOME"' | tee log`,
		parser.Workspace("/work/proj"), parser.Home("/home/dev"))
	if err != nil {
		panic(err)
	}
	for _, s := range cmd.Segments {
		var wrappers []string
		for _, w := range s.Wrappers {
			wrappers = append(wrappers, w.Name)
		}
		fmt.Printf("%d %-6s %-9s argv=%q wrappers=%v\n", s.Index, s.Kind, s.Program, s.Argv, wrappers)
		for _, o := range s.Writes {
			fmt.Printf("  writes %s (%s)\n", o.Text, o.Class)
		}
	}
	// Output:
	// 0 pipeline bash      argv=["bash" "-c" "cd /; rm -rf \"$HOME\""] wrappers=[sudo env]
	// 1 script cd        argv=["cd" "/"] wrappers=[]
	// 2 script rm        argv=["rm" "-rf" "\"$HOME\""] wrappers=[]
	//   writes "$HOME" (home)
	// 3 pipeline tee       argv=["tee" "log"] wrappers=[]
	//   writes log (workspace)
}
