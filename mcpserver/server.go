package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/internal/strictjson"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/tools"
)

// ToolFinish is the name of the tool that ends the run.
const ToolFinish = "finish"

// ProtocolVersions are the MCP protocol versions the server speaks.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Config configures [New].
type Config struct {
	// Tools configures the workspace tools; its Workspace is required. Its
	// Approver must be nil: the server asks the client.
	Tools tools.Config
	// ProjectDir is the project the grant hint names (`rivumi grant add -C
	// DIR`); default the workspace's source.
	ProjectDir string
	// Version is the server's version in the initialize answer.
	Version string
}

// Server is an MCP server of one workspace.
type Server struct {
	srv   *mcp.Server
	w     *workspace.Workspace
	tools *tools.Tools
	mu    sync.Mutex // one call at a time
}

// New returns the server of cfg.Tools.Workspace, its tools registered.
func New(cfg Config) (*Server, error) {
	w := cfg.Tools.Workspace
	if w == nil {
		return nil, errors.New("mcpserver: no workspace")
	}
	if cfg.Tools.Approver != nil {
		return nil, errors.New("mcpserver: the tools' approver is the server's")
	}
	project := cfg.ProjectDir
	if project == "" {
		project = w.Request().Source
	}
	tc := cfg.Tools
	tc.Approver = &elicitApprover{project: project}
	if tc.SessionKind == "" {
		tc.SessionKind = tools.SessionMCP
	}
	ts, err := tools.New(tc)
	if err != nil {
		return nil, err
	}
	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	s := &Server{w: w, tools: ts}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "rivumi", Title: "rivumi workspace", Version: version}, &mcp.ServerOptions{
		Instructions:              instructions(w),
		SupportedProtocolVersions: ProtocolVersions,
	})
	defs, err := Tools(w.Request())
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, t := range defs {
		s.srv.AddTool(t, s.handler(t.Name))
		known[t.Name] = true
	}
	s.srv.AddReceivingMiddleware(s.recordUnknown(known))
	return s, nil
}

// recordUnknown records a tools/call of a tool the server does not have
// (which the SDK answers with a JSON-RPC error before any handler runs),
// so that every call is in events.jsonl.
func (s *Server) recordUnknown(known map[string]bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
			if method != "tools/call" || !ok || p == nil || known[p.Name] {
				return next(ctx, method, req)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			raw := p.Arguments
			if len(raw) == 0 {
				raw = json.RawMessage("{}")
			}
			ev := bundle.Event{Tool: audit.Redact(p.Name), Args: compact(raw), BytesIn: len(raw),
				Error: audit.Redact(fmt.Sprintf("unknown tool %q", p.Name))}
			if _, err := s.w.Bundle().Append(ev); err != nil {
				return nil, fmt.Errorf("rivumi: %w", err)
			}
			if err := s.tools.Called(ev.Tool); err != nil {
				return nil, fmt.Errorf("rivumi: %w", err)
			}
			return next(ctx, method, req)
		}
	}
}

// Close ends the server's session in the bundle's session.json (its end
// time; the checkpoint written a last time). A server that is killed
// instead leaves the session without an end, and the next one resumes
// from the checkpoint. Close is idempotent; calls after it fail.
func (s *Server) Close() error { return s.tools.Close() }

// MCP returns the SDK server, to run on a transport.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one session on t (stdio: &mcp.StdioTransport{}) until the
// client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.srv.Run(ctx, t) }

func instructions(w *workspace.Workspace) string {
	req := w.Request()
	msg := "A disposable clone of the project pinned to commit " + req.Commit + ". Read a file before editing it; " +
		"create files with apply_patch; verify with run_check; end with finish, which writes changes.patch."
	if req.Task != "" {
		msg = "Task: " + req.Task + "\n" + msg
	}
	return audit.Redact(msg)
}

// callKey carries the tool call's request to the approver.
type callKey struct{}

func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		ctx = context.WithValue(ctx, callKey{}, req)
		if req.Session != nil {
			if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
				if err := s.tools.SetClient(p.ClientInfo.Name, p.ClientInfo.Version, p.ProtocolVersion); err != nil {
					return nil, fmt.Errorf("rivumi: %w", err)
				}
			}
		}
		args := req.Params.Arguments
		if name == ToolFinish {
			return s.finish(ctx, args)
		}
		res, err := s.tools.Call(ctx, name, args)
		if err != nil {
			return nil, fmt.Errorf("rivumi: %s: %w", name, err)
		}
		return toResult(res.OK, res.Error, res.Output), nil
	}
}

// toResult builds the MCP result: the output as structured content and as
// JSON text; a refusal as a tool error whose first text is the reason.
func toResult(ok bool, reason string, output json.RawMessage) *mcp.CallToolResult {
	r := &mcp.CallToolResult{IsError: !ok}
	if !ok {
		r.Content = append(r.Content, &mcp.TextContent{Text: reason})
	}
	if len(output) > 0 {
		r.StructuredContent = output
		r.Content = append(r.Content, &mcp.TextContent{Text: string(output)})
	}
	if len(r.Content) == 0 {
		r.Content = []mcp.Content{}
	}
	return r
}

// FinishArgs are finish's arguments.
type FinishArgs struct {
	// Reason is the terminal reason recorded in result.json (default
	// "finished").
	Reason string `json:"reason,omitempty"`
}

// finish writes changes.patch and result.json and records the call
// ([workspace.FinishEvent], as the CLI's workspace finish does).
func (s *Server) finish(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	var a FinishArgs
	var (
		res bundle.Result
		err error
	)
	if derr := strictjson.Decode(raw, &a); derr != nil {
		ev := workspace.FinishEvent(raw, res, errors.New("arguments: "+derr.Error()))
		if _, err := s.w.Bundle().Append(ev); err != nil {
			return nil, fmt.Errorf("rivumi: finish: %w", err)
		}
		if err := s.tools.Called(ToolFinish); err != nil {
			return nil, fmt.Errorf("rivumi: finish: %w", err)
		}
		return toResult(false, ev.Error, nil), nil
	}
	res, err = s.w.Finish(ctx, a.Reason)
	ev := workspace.FinishEvent(raw, res, err)
	_, aerr := s.w.Bundle().Append(ev)
	if err != nil {
		return nil, fmt.Errorf("rivumi: finish: %w", errors.Join(err, aerr, s.tools.Called(ToolFinish)))
	}
	if aerr != nil {
		return nil, fmt.Errorf("rivumi: finish: %w", aerr)
	}
	if err := s.tools.Called(ToolFinish); err != nil {
		return nil, fmt.Errorf("rivumi: finish: %w", err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	out, err := audit.RedactJSON(b)
	if err != nil {
		return nil, err
	}
	return toResult(true, "", out), nil
}

// compact returns raw as compact JSON, or as a JSON string when it is not
// valid JSON (as the tools record arguments).
func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		b, _ := json.Marshal(string(raw))
		return b
	}
	return buf.Bytes()
}

// Tools returns the MCP tool definitions for a workspace whose request is
// req: one per [tools.Specs] entry and finish, each with input and output
// schemas.
func Tools(req bundle.Request) ([]*mcp.Tool, error) {
	specs := append(tools.Specs(), tools.Spec{
		Name:    ToolFinish,
		Summary: "end the run: write changes.patch (the change against the pinned commit) and result.json, and return the result",
		Args:    FinishArgs{}, Output: bundle.Result{},
	})
	var out []*mcp.Tool
	for _, sp := range specs {
		in, err := schemaFor(sp.Args)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: %s input schema: %w", sp.Name, err)
		}
		if sp.Name == tools.ToolRunCheck {
			names := make([]any, 0, len(req.Checks))
			for _, c := range req.Checks {
				names = append(names, c.Name)
			}
			p := in.Properties["name"]
			if p == nil {
				return nil, errors.New("mcpserver: run_check has no name field")
			}
			if len(names) > 0 { // none configured: no enum (it must not be empty); run_check refuses every name
				p.Enum = names
			}
		}
		for field, d := range descriptions[sp.Name] {
			if p := in.Properties[field]; p != nil {
				p.Description = d
			}
		}
		o, err := schemaFor(sp.Output)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: %s output schema: %w", sp.Name, err)
		}
		ann := &mcp.ToolAnnotations{ReadOnlyHint: readOnly[sp.Name], OpenWorldHint: new(false)}
		if !readOnly[sp.Name] {
			// apply_patch deletes and overwrites files; the shell can do
			// anything its grading lets through.
			ann.DestructiveHint = new(sp.Name == tools.ToolShell || sp.Name == tools.ToolApplyPatch)
		}
		out = append(out, &mcp.Tool{Name: sp.Name, Description: sp.Summary, InputSchema: in, OutputSchema: o, Annotations: ann})
	}
	return out, nil
}

var readOnly = map[string]bool{
	tools.ToolListFiles: true, tools.ToolReadFile: true, tools.ToolSearchText: true, tools.ToolGitDiff: true,
}

var descriptions = map[string]map[string]string{
	tools.ToolListFiles:   {"path": "directory relative to the workspace root (default: the root)"},
	tools.ToolReadFile:    {"path": "file relative to the workspace root"},
	tools.ToolSearchText:  {"query": "the fixed string to find (one line)", "path": "directory or file to search (default: the root)"},
	tools.ToolReplaceText: {"path": "a git-tracked file, read with read_file and unchanged since", "old": "the exact text to replace", "new": "the replacement", "all": "replace every occurrence (default: old must occur once)"},
	tools.ToolApplyPatch:  {"patch": "a unified diff (--- a/PATH, +++ b/PATH; /dev/null for a new file)"},
	tools.ToolRunCheck:    {"name": "the verification command's name, from the configuration"},
	tools.ToolGitDiff:     {"paths": "limit the diff to these paths"},
	tools.ToolShell:       {"command": "a command string, graded by the policy and run without a shell", "dir": "working directory relative to the workspace root (default: the root)"},
	ToolFinish:            {"reason": "the terminal reason recorded in result.json"},
}

var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
	reflect.TypeFor[json.RawMessage](): {},
}}

// schemaFor derives the JSON schema of v's type: an object that admits
// no other properties.
func schemaFor(v any) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(reflect.TypeOf(v), schemaOptions)
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("%T is not an object", v)
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	return s, nil
}
