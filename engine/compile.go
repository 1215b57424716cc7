package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rivumi/rivumi/internal/textdist"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/rivumi/rivumi/policies"
	"github.com/rivumi/rivumi/policies/native"
	"github.com/rivumi/rivumi/rules"
)

// The sets a rule can add hits to, one per layer.
var layerSets = map[string]Layer{"floor": LayerFloor, "deny": LayerDeny, "ask": LayerAsk, "allow": LayerAllow}

// RuleMeta is what a rule's METADATA says about it.
type RuleMeta struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Justification string `json:"justification"`
	Layer         Layer  `json:"layer"`
	// Scope is "segment" (the default), or "wrapper", "assignment",
	// "redirect", "shape" for asks a grant may never cancel.
	Scope string `json:"scope"`
	// GrantOK is METADATA's custom.grantable: an ask rule is grantable only
	// when it says so (checked at load: only ask rules of segment scope
	// may).
	GrantOK  bool   `json:"grantable"`
	Location string `json:"location"` // file:line of the rule
	User     bool   `json:"user"`
}

// Grantable reports whether a session grant may cancel this rule's asks:
// an ask rule whose METADATA says custom.grantable: true (and whose scope
// is the segment). Nothing else is.
func (m RuleMeta) Grantable() bool {
	return m.Layer == LayerAsk && m.GrantOK && (m.Scope == "" || m.Scope == "segment")
}

// PolicyError lists problems found while loading or compiling policies,
// each as "file:line:col: message".
type PolicyError struct {
	Problems []string
}

func (e *PolicyError) Error() string {
	return "policy: " + strings.Join(e.Problems, "\n")
}

type file struct {
	name     string
	text     string
	user     bool
	testOnly bool // parsed for the Rego tests, not part of the evaluated policy
}

// yamlModule holds the generic rules behind YAML prefix rules.
const yamlModule = "rules/yaml.rego"

// load collects the built-in and user modules and the data files.
func load(cfg *config) (mods []file, dataFiles []file, err error) {
	var problems []string
	err = fs.WalkDir(policies.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.rego") {
			return err // the Rego tests are read by BuiltinTests
		}
		b, err := fs.ReadFile(policies.FS, p)
		if err != nil {
			return err
		}
		switch {
		case p == yamlModule && len(cfg.authoring.yaml) == 0:
			// The generic YAML rules cost ~17% of a verdict; without YAML
			// rules they can never hit, so they are kept out of the
			// evaluated policy (Rego tests still see them).
			mods = append(mods, file{name: "policies/" + p, text: string(b), testOnly: true})
		case strings.HasSuffix(p, ".rego"):
			mods = append(mods, file{name: "policies/" + p, text: string(b)})
		case strings.HasSuffix(p, ".json"):
			dataFiles = append(dataFiles, file{name: "policies/" + p, text: string(b)}) // decoded by decodeData
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	addFS := func(name string, fsys fs.FS) {
		werr := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(p, ".rego") || strings.HasSuffix(p, "_test.rego") {
				return nil
			}
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			mods = append(mods, file{name: path.Join(name, p), text: string(b), user: true})
			return nil
		})
		if werr != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", name, werr))
		}
	}
	for _, dir := range cfg.userDirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			problems = append(problems, fmt.Sprintf("%s: not a readable directory", dir))
			continue
		}
		addFS(filepath.Clean(dir), os.DirFS(dir))
	}
	for _, u := range cfg.userFS {
		addFS(u.name, u.fsys)
	}
	for _, s := range cfg.extra {
		mods = append(mods, file{name: s.Name, text: s.Text, user: true})
	}
	if len(problems) > 0 {
		return nil, nil, &PolicyError{Problems: problems}
	}
	return mods, dataFiles, nil
}

// decodeData merges the data files into one document.
func decodeData(dataFiles []file) (map[string]any, error) {
	data := map[string]any{}
	for _, f := range dataFiles {
		var doc map[string]any
		if err := json.Unmarshal([]byte(f.text), &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		merge(data, doc)
	}
	return data, nil
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// capabilities returns OPA's capabilities less everything that reaches
// outside the evaluation or is not deterministic.
func capabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	keep := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		n := b.Name
		switch {
		case n == "http.send", n == "opa.runtime", strings.HasPrefix(n, "net."),
			strings.HasPrefix(n, "time."), strings.HasPrefix(n, "rand."), strings.HasPrefix(n, "uuid."),
			n == "trace", n == "print", n == "internal.print", n == "providers.aws.sign_req",
			strings.HasPrefix(n, "io.jwt.decode_verify"):
			continue
		}
		keep = append(keep, b)
	}
	caps.Builtins = keep
	return caps
}

var (
	rivumiRef = ast.MustParseRef("data.rivumi")
	userRef   = ast.MustParseRef("data.rivumi.user")
	systemRef = ast.MustParseRef("data.system")
)

// checkUser refuses user modules that could weaken the built-in packs.
func checkUser(name string, m *ast.Module) []string {
	var out []string
	loc := func(l *ast.Location) string {
		if l == nil {
			return name + ":1:1"
		}
		return fmt.Sprintf("%s:%d:%d", name, l.Row, l.Col)
	}
	pkg := m.Package.Path
	switch {
	case pkg.HasPrefix(systemRef) || systemRef.HasPrefix(pkg):
		out = append(out, fmt.Sprintf("%s: package %s is reserved: user packs live in package rivumi.user or below it", loc(m.Package.Location), pkg))
	case !pkg.HasPrefix(userRef):
		out = append(out, fmt.Sprintf("%s: package %s is not allowed: user packs live in package rivumi.user or below it", loc(m.Package.Location), pkg))
	}
	for _, r := range m.Rules {
		ref := r.Head.Ref()
		head := ref[0].Value.String()
		// floor is also OPA's math builtin; the layer sets are checked below (issue 4).
		if _, isBuiltin := ast.BuiltinMap[ref.String()]; (isBuiltin || ast.BuiltinMap[head] != nil) && layerSets[head] == "" {
			out = append(out, fmt.Sprintf("%s: rule %s shadows a built-in function", loc(r.Location), ref))
		}
		if len(ref) > 1 {
			if _, layer := layerSets[head]; layer {
				out = append(out, fmt.Sprintf("%s: rule %s: layer sets must be plain partial sets", loc(r.Location), ref))
			}
		}
		if _, layer := layerSets[head]; layer && len(ref) == 1 {
			switch {
			case r.Default:
				out = append(out, fmt.Sprintf("%s: default rule %s is not allowed: %s must be a partial set (%s contains …)", loc(r.Location), head, head, head))
			case len(r.Head.Args) > 0:
				out = append(out, fmt.Sprintf("%s: function %s is not allowed: %s must be a partial set", loc(r.Location), head, head))
			case r.Head.RuleKind() != ast.MultiValue:
				out = append(out, fmt.Sprintf("%s: complete rule %s is not allowed: %s must be a partial set (%s contains …)", loc(r.Location), head, head, head))
			}
		}
	}
	return out
}

// checkOnlyStages are the compiler stages that only report problems: they
// change nothing evaluation uses (the type check's environment aside, which
// compile installs bare).
var checkOnlyStages = []ast.StageID{
	ast.StageCheckUnusedImports, ast.StageCheckKeywordOverrides, ast.StageCheckDuplicateImports,
	ast.StageCheckVoidCalls, ast.StageCheckRuleConflicts, ast.StageCheckUndefinedFuncs,
	ast.StageCheckRecursion, ast.StageCheckTypes, ast.StageCheckUnsafeBuiltins,
	ast.StageCheckDeprecatedBuiltins, ast.StageBuildRequiredCapabilities,
}

type compiled struct {
	meta     map[string]RuleMeta
	standing []Grant // grants from configuration, in force for every evaluation (engine/disable.go)
	hash     string
	data     func() (map[string]any, error) // the data document OPA reads (decoded on first use)
	testOnly []file                         // modules left out of the evaluated policy, for the Rego tests
	// native holds the Go rules (policies/native) when the embedded packs
	// run alone: verdicts then never touch OPA, and the Rego policy is
	// compiled on first use (coverage, Rego tests, sources). nil: every
	// verdict evaluates the Rego.
	native *native.Rules
	// rego returns the compiled Rego policy, compiling it on the first
	// call when the engine grades with the Go rules.
	rego func() (*regoPolicy, error)
	// examples are the match examples of the YAML rules in force (checked
	// at load), which coverage counts as tests ([Coverage.RunExamples]).
	examples []string
	// team holds the configuration's team programs, which every parse of
	// this engine reads (nil: none).
	team *rules.TeamPrograms
}

// regoPolicy is the compiled Rego: what OPA evaluates.
type regoPolicy struct {
	pq       func() (rego.PreparedEvalQuery, error) // data.rivumi.main.result: the layering in Rego
	hits     *hitQueries                            // the layer sets: the fast path (engine/layering.go)
	compiler *ast.Compiler
	modules  map[string]*ast.Module
}

func compile(ctx context.Context, cfg *config) (*compiled, error) {
	files, dataFiles, err := load(cfg)
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	// The policy hash covers the embedded files through their digest, then
	// the user files and the data.
	digest := embeddedDigest(files)
	h := sha256.New()
	h.Write([]byte(digest + "\x00"))
	userFiles := false
	for _, f := range files {
		if f.user {
			userFiles = true
			h.Write([]byte(f.name + "\x00" + f.text + "\x00"))
		}
	}
	var testOnly []file
	for _, f := range files {
		if f.testOnly {
			testOnly = append(testOnly, f) // parsed by RunRegoTests
		}
	}
	known := generatedMeta(digest)
	// The Go rules mirror the embedded packs (policies/native): they grade
	// when nothing else is loaded and nothing is switched off. Anything a
	// team wrote is graded by OPA.
	useNative := known != nil && !userFiles && len(cfg.authoring.disabled) == 0 && len(cfg.authoring.yaml) == 0 &&
		len(cfg.authoring.programs) == 0 && !cfg.regoOnly && nativeComplete(known)
	var problems []string
	var modules map[string]*ast.Module
	meta := known
	if !useNative {
		var ps []string
		modules, ps = parseAll(files, known == nil)
		if len(ps) > 0 {
			return nil, &PolicyError{Problems: ps}
		}
		meta, problems = readMeta(known, modules, files)
	}
	// The hash covers the data: the embedded JSON files by their text, the
	// rest (authoring, grantable ids; small) as JSON.
	for _, f := range dataFiles {
		h.Write([]byte(f.name + "\x00" + f.text + "\x00"))
	}
	extra := map[string]any{}
	problems = append(problems, addAuthoring(cfg, extra, meta)...) // YAML rules, switches, standing grants (engine/yaml.go)
	grantable := map[string]any{}
	for id, m := range meta {
		if m.Grantable() {
			grantable[id] = true
		}
	}
	merge(extra, map[string]any{"rivumi": map[string]any{"meta": map[string]any{"grantable": grantable}}})
	db, _ := json.Marshal(extra)
	h.Write(db)
	// Standing grants are applied in Go, not through the data: the hash
	// covers them too (the same hash must never answer ask and allow).
	if sg := standingGrants(cfg); len(sg) > 0 {
		b, _ := json.Marshal(sg)
		h.Write([]byte("\x00standing\x00"))
		h.Write(b)
	}
	// The data document is decoded when OPA needs it: the Go rules read
	// their tables straight from the files.
	dataDoc := sync.OnceValues(func() (map[string]any, error) {
		data, err := decodeData(dataFiles)
		if err != nil {
			return nil, err
		}
		merge(data, extra)
		return data, nil
	})
	c := &compiled{testOnly: testOnly, meta: meta, hash: hex.EncodeToString(h.Sum(nil))[:16], data: dataDoc}
	c.standing = standingGrants(cfg) // configuration's standing grants (engine/disable.go)
	c.examples = matchExamples(cfg)
	c.team = cfg.authoring.team // team programs (engine/programs.go)
	hasUser := userFiles || len(cfg.authoring.disabled) > 0
	build := func(modules map[string]*ast.Module) (*regoPolicy, []string) {
		if modules == nil {
			var ps []string
			if modules, ps = parseAll(files, known == nil); len(ps) > 0 {
				return nil, ps
			}
		}
		data, err := dataDoc()
		if err != nil {
			return nil, []string{err.Error()}
		}
		return compileRego(modules, data, userFiles, hasUser, hasUser || len(cfg.authoring.yaml) > 0)
	}
	if useNative {
		if len(problems) > 0 {
			return nil, &PolicyError{Problems: problems}
		}
		texts := make([][]byte, len(dataFiles))
		for i, f := range dataFiles {
			texts[i] = []byte(f.text)
		}
		tabs, err := native.LoadTables(texts...)
		if err != nil {
			return nil, err
		}
		c.native = native.New(tabs)
		c.rego = sync.OnceValues(func() (*regoPolicy, error) {
			rp, ps := build(nil)
			if len(ps) > 0 {
				return nil, &PolicyError{Problems: ps}
			}
			return rp, nil
		})
	} else {
		rp, ps := build(modules)
		problems = append(problems, ps...) // with the METADATA problems: all at once (issue 4)
		if len(problems) > 0 {
			return nil, &PolicyError{Problems: problems}
		}
		c.rego = func() (*regoPolicy, error) { return rp, nil }
	}
	if ps := checkExamples(ctx, c, cfg); len(ps) > 0 { // YAML rule examples (engine/yaml.go)
		return nil, &PolicyError{Problems: ps}
	}
	return c, nil
}

// nativeComplete reports whether every built-in layer rule of meta has its
// Go mirror (TestNativeComplete holds it so; a rule without one sends every
// verdict through OPA rather than leave the rule out).
func nativeComplete(meta map[string]RuleMeta) bool {
	have := map[string]bool{}
	for _, r := range native.All() {
		have[r.ID] = true
	}
	for id, m := range meta {
		if m.Layer != "" && !have[id] {
			return false
		}
	}
	return true
}

// parseAll parses the evaluated modules (test-only files are left out) and
// adds the generated aggregation of the user packages' layer sets.
// embeddedMeta asks for the embedded packs' METADATA too (when the
// generated table does not match them).
func parseAll(files []file, embeddedMeta bool) (map[string]*ast.Module, []string) {
	var problems []string
	modules := map[string]*ast.Module{}
	userPkgs := map[string]map[string]bool{}
	parsed := parseModules(files, embeddedMeta)
	for i, f := range files {
		if f.testOnly {
			continue
		}
		m, err := parsed[i].m, parsed[i].err
		if err != nil {
			problems = append(problems, astProblems(err)...)
			continue
		}
		if f.user {
			problems = append(problems, checkUser(f.name, m)...)
			pkg := m.Package.Path.String()
			if pkg != userRef.String() {
				for _, r := range m.Rules {
					if _, ok := layerSets[r.Head.Ref()[0].Value.String()]; ok {
						if userPkgs[pkg] == nil {
							userPkgs[pkg] = map[string]bool{}
						}
						userPkgs[pkg][r.Head.Ref()[0].Value.String()] = true
					}
				}
			}
		}
		if _, dup := modules[f.name]; dup {
			problems = append(problems, fmt.Sprintf("%s: loaded twice", f.name))
		}
		modules[f.name] = m
	}
	if len(problems) > 0 {
		return nil, problems
	}
	if gen := userAggregation(userPkgs); gen != "" {
		m, err := ast.ParseModuleWithOpts("generated/user_packages.rego", gen, ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, []string{"generated user aggregation: " + err.Error()}
		}
		modules["generated/user_packages.rego"] = m
	}
	return modules, nil
}

// compileRego compiles the modules over data and prepares the queries.
// userFiles: a team's modules are among them (every check stage runs, with
// the input schema); hasUser: the layer sets go through main.rego's unions
// and switch filter; alwaysAllow: see hitQueries.
func compileRego(modules map[string]*ast.Module, data map[string]any, userFiles, hasUser, alwaysAllow bool) (*regoPolicy, []string) {
	compiler := ast.NewCompiler().
		WithStrict(true).
		WithCapabilities(capabilities()).
		WithEnablePrintStatements(false).
		WithKeepModules(true)
	if userFiles {
		// A rule that reads a field the input does not have
		// (input.segment.write_class) is a type error with file:line.
		compiler = compiler.WithSchemas(InputSchemas())
	}
	if !userFiles {
		// The embedded packs passed every check when rivumi was built
		// (TestEmbeddedPassesEveryCheck, `opa check --strict` in CI) and
		// cannot change since: the stages that only check are skipped
		// (~1.7 ms of a fresh process's start). User packs get them all.
		compiler = compiler.WithSkipStages(checkOnlyStages...)
	}
	compiler.Compile(modules)
	if !userFiles && !compiler.Failed() {
		// The skipped type check leaves no type environment; install the
		// built-ins' one, which evaluation consults for `with` and calls.
		compiler.PassesTypeCheckRules(nil)
	}
	if compiler.Failed() {
		return nil, astProblems(compiler.Errors)
	}
	store := inmem.NewFromObjectWithOpts(data, inmem.OptReturnASTValuesOnRead(true))
	// The layering in Rego is read by the coverage report and the test that
	// proves the fast path identical, never by a verdict: prepared on first
	// use.
	pq := sync.OnceValues(func() (rego.PreparedEvalQuery, error) {
		return rego.New(
			rego.Query("data.rivumi.main.result"),
			rego.Compiler(compiler),
			rego.Store(store),
			rego.StrictBuiltinErrors(true),
		).PrepareForEval(context.Background())
	})
	// The fast query skips main.rego's unions and switch filter when there
	// is nothing to union or filter.
	hits, err := prepareHits(compiler, store, hasUser, alwaysAllow)
	if err != nil {
		return nil, astProblems(err)
	}
	return &regoPolicy{pq: pq, hits: hits, compiler: compiler, modules: modules}, nil
}

// generatedMeta returns the generated METADATA table (builtinMeta) when
// digest is the embeddedDigest of the very packs it was made from, and nil
// otherwise: then their METADATA is parsed like a user pack's.
func generatedMeta(digest string) map[string]RuleMeta {
	if digest != builtinMetaDigest {
		return nil
	}
	return builtinMeta()
}

// embeddedDigest identifies the embedded Rego files (test-only ones
// included, user files left out), in files' order.
func embeddedDigest(files []file) string {
	h := sha256.New()
	for _, f := range files {
		if !f.user {
			h.Write([]byte(f.name + "\x00" + f.text + "\x00"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

type parsedModule struct {
	m   *ast.Module
	err error
}

// parseModules parses the files on every CPU (parsing is ~40% of start-up,
// and each file parses on its own); results are in the files' order. The
// METADATA of user files is parsed too, and of the embedded ones when
// embeddedMeta; test-only files are left out.
func parseModules(files []file, embeddedMeta bool) []parsedModule {
	out := make([]parsedModule, len(files))
	order := make([]int, 0, len(files))
	for i, f := range files {
		if !f.testOnly {
			order = append(order, i)
		}
	}
	// Largest first, so that the CPUs finish together.
	sort.Slice(order, func(a, b int) bool { return len(files[order[a]].text) > len(files[order[b]].text) })
	next := make(chan int, len(order))
	for _, i := range order {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				// The embedded packs' METADATA comes from builtinMeta; only
				// user packs have theirs parsed (YAML, ~25% of a parse).
				m, err := ast.ParseModuleWithOpts(files[i].name, files[i].text, ast.ParserOptions{ProcessAnnotation: files[i].user || embeddedMeta, RegoVersion: ast.RegoV1})
				out[i] = parsedModule{m, err}
			}
		}()
	}
	wg.Wait()
	return out
}

// userAggregation generates rules collecting the layer sets of user
// packages below rivumi.user.
func userAggregation(pkgs map[string]map[string]bool) string {
	if len(pkgs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("package rivumi.main.user\n\n")
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		for _, l := range []string{"floor", "deny", "ask", "allow"} {
			if pkgs[p][l] {
				fmt.Fprintf(&b, "%s contains h if some h in %s.%s\n\n", l, p, l)
			}
		}
	}
	return b.String()
}

// readMeta reads the METADATA of every layer rule of the user files and
// checks that the ids its hits carry are declared, unique, and titled and
// justified; known holds the rules already declared (the embedded packs',
// checked when rivumi is built: TestBuiltinMetaInSync). With known nil, it
// reads every file's.
func readMeta(known map[string]RuleMeta, modules map[string]*ast.Module, files []file) (map[string]RuleMeta, []string) {
	meta := map[string]RuleMeta{}
	for id, m := range known {
		meta[id] = m
	}
	var problems []string
	user := map[string]bool{}
	for _, f := range files {
		user[f.name] = f.user
	}
	type use struct {
		id   string
		loc  string
		user bool
	}
	var uses []use
	names := make([]string, 0, len(modules))
	for n := range modules {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := modules[n]
		if !m.Package.Path.HasPrefix(rivumiRef) || strings.HasPrefix(m.Package.Path.String(), "data.rivumi.main") || (known != nil && !user[n]) {
			continue
		}
		for _, r := range m.Rules {
			ref := r.Head.Ref()
			layer, ok := layerSets[ref[0].Value.String()]
			if !ok || len(ref) != 1 {
				continue
			}
			loc := fmt.Sprintf("%s:%d", n, r.Location.Row)
			id := hitID(r)
			for _, a := range r.Annotations {
				if a.Scope != "rule" {
					continue
				}
				mid, _ := a.Custom["id"].(string)
				just, _ := a.Custom["justification"].(string)
				scope, _ := a.Custom["scope"].(string)
				grantOK := false
				if g, set := a.Custom["grantable"]; set {
					b, isBool := g.(bool)
					switch {
					case !isBool:
						problems = append(problems, fmt.Sprintf("%s: rule %s: custom.grantable must be true or false", loc, mid))
					case b && layer != LayerAsk:
						problems = append(problems, fmt.Sprintf("%s: rule %s: custom.grantable: only ask rules can be granted", loc, mid))
					case b && scope != "" && scope != "segment":
						problems = append(problems, fmt.Sprintf("%s: rule %s: custom.grantable with scope %s: asks raised by a %s are never grantable", loc, mid, scope, scope))
					}
					grantOK = b
				}
				switch {
				case mid == "" && a.Custom["ids_from"] != nil:
					continue // generic rule: its hits carry ids registered from data (engine/yaml.go)
				case mid == "":
					problems = append(problems, fmt.Sprintf("%s: METADATA has no custom.id", loc))
					continue
				case a.Title == "":
					problems = append(problems, fmt.Sprintf("%s: rule %s: METADATA has no title", loc, mid))
				case strings.TrimSpace(just) == "":
					problems = append(problems, fmt.Sprintf("%s: rule %s: METADATA has no custom.justification", loc, mid))
				}
				if prev, dup := meta[mid]; dup {
					problems = append(problems, fmt.Sprintf("%s: rule id %s already declared at %s", loc, mid, prev.Location))
					continue
				}
				if id != "" && id != mid {
					problems = append(problems, fmt.Sprintf("%s: hit id %q differs from METADATA custom.id %q", loc, id, mid))
				}
				meta[mid] = RuleMeta{ID: mid, Title: a.Title, Justification: strings.TrimSpace(just), Layer: layer, Scope: scope, GrantOK: grantOK, Location: loc, User: user[n]}
			}
			if id == "" {
				if len(r.Annotations) == 0 {
					problems = append(problems, fmt.Sprintf("%s: %s rule has no METADATA and no literal {\"id\": …} hit", loc, layer))
				}
				continue
			}
			uses = append(uses, use{id: id, loc: loc, user: user[n]})
		}
	}
	for _, u := range uses {
		m, ok := meta[u.id]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: hit id %q has no METADATA (title, custom.id, custom.justification)", u.loc, u.id))
		case u.user && !m.User:
			// A team's rule speaking as a built-in one would be credited
			// with its title and justification, and cancelled by its grants.
			problems = append(problems, fmt.Sprintf("%s: hit id %q is a built-in rule's (%s); a user rule declares an id of its own", u.loc, u.id, m.Location))
		}
	}
	return meta, problems
}

// hitID returns the literal "id" of a rule's hit object, or "".
func hitID(r *ast.Rule) string {
	if r.Head.Key == nil {
		return ""
	}
	obj, ok := r.Head.Key.Value.(ast.Object)
	if !ok {
		return ""
	}
	v := obj.Get(ast.StringTerm("id"))
	if v == nil {
		return ""
	}
	s, ok := v.Value.(ast.String)
	if !ok {
		return ""
	}
	return string(s)
}

// astProblems formats OPA errors as file:line:col: message.
func astProblems(err error) []string {
	var errs ast.Errors
	if errors.As(err, &errs) {
		out := make([]string, 0, len(errs))
		for _, e := range errs {
			out = append(out, astProblem(e))
		}
		return out
	}
	var one *ast.Error
	if errors.As(err, &one) && one.Location != nil {
		return []string{astProblem(one)}
	}
	return []string{err.Error()}
}

// astProblem is "file:line:col: message", then OPA's details on lines of
// their own, each after a tab: the source line with a caret under the
// column, or for a misspelt input field what was written, the fields
// there are, and the nearest one ("did you mean").
func astProblem(e *ast.Error) string {
	var b strings.Builder
	if e.Location != nil {
		fmt.Fprintf(&b, "%s:%d:%d: ", e.Location.File, e.Location.Row, e.Location.Col)
	}
	b.WriteString(e.Message)
	if e.Details != nil {
		for _, l := range e.Details.Lines() {
			b.WriteString("\n\t" + strings.TrimPrefix(l, "\t"))
		}
		if d, ok := e.Details.(*ast.RefErrInvalidDetail); ok && d.Pos < len(d.Ref) {
			if have, ok := d.Ref[d.Pos].Value.(ast.String); ok && len(d.OneOf) > 0 {
				names := make([]string, 0, len(d.OneOf))
				for _, v := range d.OneOf {
					if s, ok := v.(ast.String); ok {
						names = append(names, string(s))
					}
				}
				if best, ok := textdist.Closest(string(have), names); ok {
					fmt.Fprintf(&b, "\n\tdid you mean %q?", best)
				}
			}
		}
	} else if e.Location != nil && len(e.Location.Text) > 0 && e.Location.Col > 0 {
		// The offending text, as OPA's parser shows it.
		line := strings.SplitN(string(e.Location.Text), "\n", 2)[0]
		b.WriteString("\n\t" + line + "\n\t^")
	}
	return b.String()
}
