// The data model every layer reads: Command, Segment, Operand, Redirect,
// Code, Shape and the tag vocabulary.

package parser

// Command is a parsed command line.
type Command struct {
	// Text is the command as given.
	Text string `json:"text"`
	// Shell is the dialect it was parsed in: "bash", "sh" or "zsh".
	Shell string `json:"shell"`
	// Segments lists every simple command, parents before their children.
	// It is empty only when the text holds no command at all (or on a
	// parse error or limit hit, see Shape).
	Segments []*Segment `json:"segments"`
	// Shape describes the command as a whole.
	Shape Shape `json:"shape"`
}

// Segment is one simple command with its facts. All string slices are
// non-nil after Parse, so that encoders never emit null.
type Segment struct {
	Index  int    `json:"index"`
	Parent int    `json:"parent"` // index of the enclosing segment, -1 at top level
	Depth  int    `json:"depth"`  // 0 at top level; +1 per substitution or inline script
	Kind   string `json:"kind"`   // where it sits: see the Kind* constants
	Text   string `json:"text"`   // source text of the simple command (may be abridged)

	// Argv is the command after unwrapping, quotes and escapes removed;
	// dynamic words are kept as source text (see Dynamic).
	Argv []string `json:"argv"`
	// Dynamic[i] reports that Argv[i] cannot be known statically.
	Dynamic []bool `json:"dynamic"`
	// Program is the basename of Argv[0], lower-cased and without ".exe"
	// (see Tags "name-normalized"); "" when Argv is empty (assignments only).
	Program string `json:"program"`
	// Path is Argv[0] as written (after unquoting): "rm", "./rm", "/usr/bin/rm".
	Path string `json:"path"`
	// PathKind is "bare", "system" (/bin, /usr/bin …), "relative" (./x,
	// a/b), "absolute" (any other absolute path) or "dynamic".
	PathKind string `json:"path_kind"`
	// Wrappers peeled off, outermost first.
	Wrappers []Wrapper `json:"wrappers"`
	// Subcommand is the first operand for programs with subcommands (git
	// push, npm install); "" otherwise.
	Subcommand string `json:"subcommand"`
	// Flags is the set of options given, by canonical name (rm -rf →
	// "recursive", "force"); unknown options by their spelling without
	// dashes. Sorted, unique.
	Flags []string `json:"flags"`
	// Options maps an option's canonical name to the values given to it.
	Options map[string][]string `json:"options"`
	// Operands are the non-option arguments after the subcommand.
	Operands []Operand `json:"operands"`
	// Redirects that apply to the segment, including those on enclosing
	// compound commands.
	Redirects []Redirect `json:"redirects"`
	// Assigns are the NAME=value prefixes (and env/sudo assignments).
	Assigns []Assign `json:"assigns"`
	// Cwd is the working directory the segment runs in, as far as known;
	// CwdKnown is false after a computed cd, and after one that may have
	// failed (Cwd is then where it led).
	Cwd      string `json:"cwd"`
	CwdKnown bool   `json:"cwd_known"`
	// Upstream and Downstream list the programs before and after this
	// segment in its pipeline.
	Upstream   []string `json:"upstream"`
	Downstream []string `json:"downstream"`
	// Stdin says where standard input comes from: "" (inherited), "pipe",
	// "heredoc", "herestring", "file".
	Stdin string `json:"stdin"`
	// Code lists code carried by arguments that is not shell (or that is
	// shell but unknowable): interpreter one-liners, awk and sed scripts …
	Code []Code `json:"code"`
	// Writes are the paths the segment writes or deletes (operands of
	// writers and deleters, output options, redirect targets).
	Writes []Operand `json:"writes"`
	// Reads are the paths it may read: operands, input redirects and
	// @file option values (curl -d @f).
	Reads []Operand `json:"reads"`
	// Tags are boolean facts; see the Tag* constants.
	Tags []string `json:"tags"`

	segCwdAbs string              // absolute cwd set by env -C / git -C, for classing operands
	cwdAbs    string              // absolute cwd the segment runs in, "" when unknown or virtual
	ws        string              // the absolute workspace, "" when unknown
	hdoc      *hdocInfo           // the heredoc or here-string on its stdin, if any
	dynOpts   map[string]word     // dynamic option values by "name\x00text"
	procOut   bool                // runs inside >( ) of its parent
	xargs     []*xargsPlan        // what each xargs was handed, outermost first, when xargs runs this segment
	argSubst  [2]int              // xargs -a <(…) being peeled: the segments of the substitution
	tilde     bool                // some argument starts with a tilde the shell expanded (echo ~)
	xargsOpts map[string][]string // the options of the xargs that runs it, by canonical name
	fillOnly  bool                // run by find -exec: its only dynamic words are {} standing for paths below a static root
	listedBy  *Segment            // with TagListedArgs: the find whose listing it reads
	// listedGlobs (with TagListedArgs, from git ls-files PATTERN): the
	// name patterns the listing selects by.
	listedGlobs []string
}

// Where a segment sits (Segment.Kind).
const (
	KindTop       = "top"       // a statement of the command line
	KindPipeline  = "pipeline"  // a part of a pipeline
	KindSubst     = "subst"     // inside $( ) or backticks
	KindProcSubst = "procsubst" // inside <( ) or >( )
	KindScript    = "script"    // shell code carried by an argument (bash -c, eval, trap …)
	KindStdin     = "stdin"     // shell code fed on standard input (heredoc, here-string)
	KindExec      = "exec"      // a program run by another (find -exec, xargs, parallel)
	KindRemote    = "remote"    // shell code run on another host (ssh host cmd)
	KindEmbedded  = "embedded"  // a shell command found in a string of opaque code
	KindFunction  = "function"  // inside a function body
)

// Tags (Segment.Tags).
const (
	TagDynamicProgram = "dynamic-program" // the program name is not static
	TagDynamicArgs    = "dynamic-args"    // some argument is not static
	TagAppendedArgs   = "appended-args"   // more arguments come at run time (xargs, find -exec … +)
	TagChangedShell   = "changed-shell"   // an earlier statement changed how words resolve
	TagNameNormalized = "name-normalized" // the program was spelled with other case or .exe
	TagDynamicCode    = "dynamic-code"    // a code-carrying argument is not static
	TagFetchedCode    = "fetched-code"    // code comes from a network fetch
	TagStdinCode      = "stdin-code"      // a shell or interpreter reads code from a pipe or file
	TagScriptFile     = "script-file"     // a shell or interpreter runs a script file
	TagRunsAnything   = "runs-anything"   // the program runs whatever it is handed (a shell, an interpreter, a wrapper, npm exec): never grantable
	TagInteractive    = "interactive"     // a shell or interpreter started with no code: interactive
	TagRunsDownloaded = "runs-downloaded" // runs a file an earlier segment downloaded
	TagForkBomb       = "fork-bomb"       // a function that calls itself in a pipe or background
	TagCodeCritical   = "code-critical"   // opaque code destroys a critical path
	TagCodeRevShell   = "code-revshell"   // opaque code runs commands read from a socket, or wires a socket to a shell
	// Heuristic evidence in opaque code: names that occur together, with no
	// call proven to get the dangerous argument. They ask; the floor
	// denies only on the certain tags above.
	TagSuspectCritical = "code-suspect-critical" // destroys or overwrites something, and names a critical path somewhere
	TagSuspectFetch    = "code-suspect-fetch"    // reads the network and evaluates code, not provably the same data
	TagSuspectRevShell = "code-suspect-revshell" // opens network connections and runs programs
	TagSuspectFloor    = "code-suspect-floor"    // runs programs, and a string of it (or all of them joined) has a floor shape
	TagCodeSpawns      = "code-spawns"           // opaque code can run programs
	TagApplyPatch      = "apply-patch"           // Codex's apply_patch with a static patch: its files are the writes
	TagBackground      = "background"            // runs in the background (&)
	TagRemote          = "remote"                // runs on another host
	TagArithDynamic    = "arith-dynamic"         // a variable is evaluated arithmetically
	TagResolution      = "changes-resolution"    // this statement changes how later words resolve
	TagCodeUnsafe      = "code-unsafe"           // an awk or sed script outside the safe subset
	TagOpaqueCode      = "opaque-code"           // carries code outside the safe subset (see Code)
	TagSecretEnv       = "secret-env"            // reads a secret-looking variable ($GITHUB_TOKEN), an indirect one (${!x}), or dumps them all
	TagDerived         = "derived"               // some word is known only by static evaluation of values the command set (x=rm; $x)
	TagListedArgs      = "listed-args"           // the arguments appended at run time are paths a listing printed (find … | xargs, find -exec … {}), below the roots now among the operands; none can be an option
	TagHomeRead        = "home-read"             // reads the contents of a file in a home directory outside the workspace (listings and metadata do not count)

	// Summary tags, so that rules can test cheaply (and OPA can index)
	// whether a list is non-empty before iterating it.
	TagWrites   = "writes"   // Writes is not empty
	TagAssigns  = "assigns"  // Assigns is not empty
	TagWrapped  = "wrapped"  // Wrappers is not empty
	TagRedirect = "redirect" // Redirects is not empty
)

// Wrapper is a program that ran the segment's command: sudo, env, xargs …
type Wrapper struct {
	Name string   `json:"name"`
	Args []string `json:"args"` // its own options and arguments
}

// Operand is a path-like argument with its class.
type Operand struct {
	Text    string `json:"text"`    // as resolved (source text when dynamic)
	Path    string `json:"path"`    // normalised: absolute, or "~/…", or "" when unknown
	Class   string `json:"class"`   // see the Class* constants
	Dynamic bool   `json:"dynamic"` // not static (substitution, variable, glob …)
	// Link is where the path points when it passes through a symlink
	// (only with [FollowSymlinks]), for humans; LinkClass is the class of
	// whichever of the written path and the target is not Class (Class is
	// the stricter of the two). Both are "" when no link was followed.
	// For a glob that may match names of several classes, Class is the
	// strictest and LinkClass, with no Link, a secret class among them.
	Link      string `json:"link,omitempty"`
	LinkClass string `json:"link_class,omitempty"`

	abs  string // absolute path (internal form), "" when unknown
	home bool   // it or its target lies in a home directory outside the workspace
}

// Redirect is one redirection applying to a segment.
type Redirect struct {
	Op     string  `json:"op"` // ">", ">>", "<", "<>", ">|", "&>", "&>>", ">&", "<&", "<<", "<<-", "<<<"
	Fd     string  `json:"fd"` // the fd as written ("" when implicit)
	Target Operand `json:"target"`
	// Inherited is true when the redirect is on an enclosing compound command.
	Inherited bool `json:"inherited"`

	fetch bool // the target is a substitution that fetches from the network
	// childFrom, childTo: the segments of a substitution target (< <(…)).
	childFrom, childTo int
}

// Assign is a NAME=value given to a command (or to the shell, when the
// command has no words).
type Assign struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Dynamic bool   `json:"dynamic"`

	// For static evaluation: known is set when the value is statically
	// known; array holds an array's elements in list; appends is +=;
	// indexed is set when some element has a subscript, and keys holds
	// each element's subscript as written ("" for none).
	known, array, appends, naked, indexed bool
	list, keys                            []string
}

// Code is an argument that carries code rivumi does not parse as shell, or
// shell code that cannot be known statically.
type Code struct {
	Lang string `json:"lang"` // "awk", "sed", "python", "node", "vim", "git-alias", "shell" …
	Text string `json:"text"`
	// Safe is set for awk and sed scripts inside the safe subset (no
	// commands run, no files written).
	Safe    bool `json:"safe"`
	Dynamic bool `json:"dynamic"`
}

// Shape describes the command as a whole.
type Shape struct {
	Operators      []string    `json:"operators"` // "&&", "||", ";", "|", "|&", "&" as they occur (unique)
	Substitutions  int         `json:"substitutions"`
	ProcSubsts     int         `json:"proc_substs"`
	Heredocs       int         `json:"heredocs"`
	Background     bool        `json:"background"`
	DynamicCommand bool        `json:"dynamic_command"` // some program name is not static
	ChangedShell   bool        `json:"changed_shell"`
	Functions      []string    `json:"functions"`
	Error          *ParseError `json:"error,omitempty"`
	// Limit names the limit hit ("size", "depth", "recursion",
	// "segments"), or "" when none was.
	Limit string `json:"limit,omitempty"`
}

// ParseError is a syntax error with its position (1-based).
type ParseError struct {
	Line       int    `json:"line"`
	Col        int    `json:"col"`
	Msg        string `json:"msg"`
	Incomplete bool   `json:"incomplete"` // the text ended early (unclosed quote, missing fi …)
}

func (e *ParseError) Error() string {
	return itoa(e.Line) + ":" + itoa(e.Col) + ": " + e.Msg
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// HasTag reports whether the segment carries tag t.
func (s *Segment) HasTag(t string) bool {
	for _, x := range s.Tags {
		if x == t {
			return true
		}
	}
	return false
}

func (s *Segment) tag(t string) {
	if !s.HasTag(t) {
		s.Tags = append(s.Tags, t)
	}
}
