// The external-client end-to-end test of `rivumi mcp`, run by .ci/mcp-e2e:
// the TypeScript MCP SDK's client (which validates structured content
// against each tool's output schema) drives a real `rivumi mcp` process,
// over stdio and over streamable HTTP on loopback.
//
// env: MCP_SDK_DIR (the @modelcontextprotocol/sdk package directory),
// RIVUMI (the binary), RUN_STDIO and RUN_HTTP (two prepared run
// directories of the same project: greeting.txt with a typo, a check
// "spelling"), LATENCY_CALLS (default 200).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const sdk = process.env.MCP_SDK_DIR;
const load = (p) => import(pathToFileURL(`${sdk}/dist/esm/${p}`).href);
const { Client } = await load('client/index.js');
const { StdioClientTransport } = await load('client/stdio.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const { ElicitRequestSchema } = await load('types.js');

let failures = 0;
const check = (ok, what, detail) => {
  if (ok) {
    console.log(`ok   ${what}`);
  } else {
    failures++;
    console.log(`FAIL ${what}${detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
  }
};

function newClient(answers) {
  const client = new Client({ name: 'rivumi-e2e', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    answers.asked.push(req.params.message);
    const a = answers.next.shift() ?? 'deny';
    if (a === 'decline' || a === 'cancel') return { action: a };
    return { action: 'accept', content: { answer: a } };
  });
  return client;
}

const text = (res) => (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

async function walkThrough(client, runDir, answers, label) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(['apply_patch', 'finish', 'git_diff', 'list_files', 'read_file', 'replace_text', 'run_check', 'search_text', 'shell']),
    `${label}: tools listed`, names);
  const rc = tools.find((t) => t.name === 'run_check');
  check(JSON.stringify(rc?.inputSchema?.properties?.name?.enum) === '["spelling"]', `${label}: run_check name is an enum of the checks`, rc?.inputSchema);
  check(tools.every((t) => t.outputSchema && !Object.keys(t.inputSchema.properties ?? {}).some((p) => p.includes('timeout'))),
    `${label}: every tool has an output schema and no timeout parameter`);

  // callTool validates structuredContent against the tool's outputSchema.
  let res = await client.callTool({ name: 'read_file', arguments: { path: 'greeting.txt' } });
  check(!res.isError && res.structuredContent?.content === 'Hello, wrold!\n', `${label}: read_file`, res);
  res = await client.callTool({ name: 'replace_text', arguments: { path: 'greeting.txt', old: 'wrold', new: 'world' } });
  check(!res.isError && res.structuredContent?.replacements === 1, `${label}: replace_text`, res);
  res = await client.callTool({ name: 'read_file', arguments: { path: '../x' } });
  check(res.isError && text(res).includes('".." segment'), `${label}: a path outside is a tool error naming it`, res);
  res = await client.callTool({ name: 'run_check', arguments: { name: 'spelling', timeout_seconds: 5 } });
  check(res.isError && text(res).includes('timeout_seconds is not accepted'), `${label}: timeout_seconds is refused`, res);

  answers.next.push('once');
  res = await client.callTool({ name: 'shell', arguments: { command: 'rm -rf notes.txt' } });
  check(!res.isError && res.structuredContent?.decision === 'ask' && answers.asked.length === 1 && answers.asked[0].includes('rm -rf notes.txt'),
    `${label}: an ask is an elicitation, answered once`, { res, asked: answers.asked });
  answers.next.push('decline');
  res = await client.callTool({ name: 'shell', arguments: { command: 'rm -rf notes.txt' } });
  check(res.isError && text(res).includes('answer deny'), `${label}: a declined elicitation is a deny`, res);

  res = await client.callTool({ name: 'run_check', arguments: { name: 'spelling' } });
  check(!res.isError && res.structuredContent?.passed === true, `${label}: run_check`, res);
  res = await client.callTool({ name: 'finish', arguments: { reason: 'e2e' } });
  check(!res.isError && res.structuredContent?.status === 'passed', `${label}: finish`, res);
  const patch = readFileSync(`${runDir}/bundle/changes.patch`, 'utf8');
  check(patch.includes('+Hello, world!'), `${label}: changes.patch has the edit`);
  const events = readFileSync(`${runDir}/bundle/events.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  check(events.length === 8 && events.at(-1).tool === 'finish', `${label}: every call is in events.jsonl`, events.map((e) => e.tool));
}

const env = { ...process.env };

// stdio
{
  const answers = { next: [], asked: [] };
  const client = newClient(answers);
  const transport = new StdioClientTransport({ command: process.env.RIVUMI, args: ['mcp', '-run', process.env.RUN_STDIO, '-sandbox', 'none'], env, stderr: 'inherit' });
  await client.connect(transport);
  check(client.getServerVersion()?.name === 'rivumi', 'stdio: initialize', client.getServerVersion());
  await walkThrough(client, process.env.RUN_STDIO, answers, 'stdio');

  // Latency of one tool call over stdio, through the client.
  const n = Number(process.env.LATENCY_CALLS ?? 200);
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const r = await client.callTool({ name: 'list_files', arguments: {} });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.isError) { check(false, 'latency call', r); break; }
  }
  times.sort((a, b) => a - b);
  const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
  console.log(`latency: list_files over stdio (TypeScript SDK client), ${n} calls: p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms`);
  await client.close();
}

// streamable HTTP on loopback
{
  // -http needs a bearer token: rivumi mcp makes the file (mode 0600) when it is missing.
  const tokenFile = process.env.RUN_HTTP + '.token';
  const server = spawn(process.env.RIVUMI, ['mcp', '-run', process.env.RUN_HTTP, '-sandbox', 'none', '-http', '127.0.0.1:0', '-token-file', tokenFile], { env, stdio: ['ignore', 'inherit', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('no listening line from rivumi mcp: ' + buf)), 30000);
    server.stderr.on('data', (d) => {
      buf += d;
      const m = buf.match(/on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    server.on('exit', (c) => reject(new Error(`rivumi mcp exited ${c}: ${buf}`)));
  });
  const answers = { next: [], asked: [] };
  const client = newClient(answers);
  const token = (await import('node:fs')).readFileSync(tokenFile, 'utf8').trim();
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  await walkThrough(client, process.env.RUN_HTTP, answers, 'http');
  await client.close();
  server.kill('SIGTERM');
}

if (failures > 0) {
  console.log(`mcp-e2e: ${failures} check(s) failed`);
  process.exit(1);
}
console.log('mcp-e2e: all checks passed');
