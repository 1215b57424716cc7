// Package mcpserver serves the tools of a prepared workspace
// ([workspace/tools]) over the Model Context Protocol, with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk): over stdio, and over
// streamable HTTP on a loopback address or a unix socket ([Listen]).
//
// # Tools
//
// Every tool of [tools.Specs] is offered with an input schema derived from
// its argument type (no additional properties, no timeout parameter:
// the harness owns every timeout), run_check's name restricted to the
// configured checks' names, and an output schema derived from its output
// type. One more tool, finish, writes changes.patch and result.json
// ([workspace.Workspace.Finish]).
//
// Arguments go to [tools.Tools.Call] as the client sent them, so its strict
// decoding (unknown, duplicate and case-variant keys, trailing data, wrong
// types, timeout fields) decides, and every call — a refused one, and one
// of a tool the server does not have (a JSON-RPC error), included — is
// recorded in the bundle's events.jsonl. A result carries the tool's
// output as structured content, and as JSON text for clients that read
// only content. A refusal (a path out of policy, a stale read, a denied
// command, a failing check) is an MCP tool error (isError) whose text says
// why, naming the field or path; a failing check's or command's output
// still comes with it. An unexpected failure (the bundle cannot be
// written) is a JSON-RPC error: the call did not happen as recorded.
//
// Calls are serialised: one at a time, across every session.
//
// # Approvals
//
// A shell command the policy grades ask is put to the client as an MCP
// elicitation (a form with one field, answer: once, always or deny;
// always only when a grant can cover the command, and it is then
// recorded in the grant store as a per-prefix grant). Decline, cancel, an
// answer outside the form, an elicitation error and the approval timeout
// are all deny. A client that does not declare the elicitation capability
// is not asked: the call is refused with the `rivumi grant add` command
// that would allow it ([grant.Hint]).
//
// # Sessions and resume
//
// The server's tools keep the bundle's session.json (the client's name and
// version, the calls per tool, the approvals and grants, the sandbox) and
// checkpoint.json (the read versions, the approvals pending) after every
// state change ([tools.New]). A server started on a run directory whose
// last server was killed resumes from the checkpoint: a file read before
// and unchanged on disk can be edited without a fresh read, and a call
// that was waiting for an approval is recorded as interrupted (its
// command never ran). A corrupt or foreign checkpoint stops [New] with an
// error. [Server.Close] records the session's end.
//
// The server speaks the protocol versions of the initialize handshake
// (2025-11-25 and older), in which the server may send requests such as
// elicitation/create while it answers a call.
package mcpserver
