// In-process throughput of cc-safety-net's library API (checkCommand), the
// node counterpart of `benchtool inproc`: one call after the other over the
// same command mix, each call timed. scripts/bench copies this file next to
// the node_modules it installed cc-safety-net into and runs it there.
//
//   node ccsn_inproc.mjs CMDS.jsonl SECONDS WARMUP_SECONDS OUT.tsv ID CWD
import { readFileSync, appendFileSync } from 'node:fs';
import { checkCommand } from 'cc-safety-net/api';

const [cmdsFile, secs = '3', warmSecs = '1', out = '', id = 'ccsn.inproc', cwd = process.cwd()] = process.argv.slice(2);
const cmds = readFileSync(cmdsFile, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

let sink = 0;
function loop(ms, record) {
  const durs = [];
  const end = performance.now() + ms;
  for (let i = 0; performance.now() < end; i++) {
    const t0 = process.hrtime.bigint();
    const r = checkCommand({ command: cmds[i % cmds.length], cwd });
    const d = process.hrtime.bigint() - t0;
    if (r.kind === 'deny') sink++;
    if (record) durs.push(Number(d));
  }
  return durs;
}
loop(Number(warmSecs) * 1000, false);
const durs = loop(Number(secs) * 1000, true);
durs.sort((a, b) => a - b);
const q = (p) => durs[Math.min(durs.length - 1, Math.floor(p * durs.length))];
const mean = durs.reduce((a, b) => a + b, 0) / durs.length;
const denies = cmds.filter((c) => checkCommand({ command: c, cwd }).kind === 'deny').length;
const note = `n=${durs.length} mean=${(mean / 1e3).toFixed(1)}us denies=${denies}/${cmds.length} node=${process.version}`;
const line = `${id}\t${q(0.5)}\t${q(0.95)}\t${q(0.99)}\t${(1e9 / mean).toFixed(1)}\t${note}\n`;
process.stderr.write(`  ${id.padEnd(28)} median ${(q(0.5) / 1e3).toFixed(1).padStart(7)} us  p95 ${(q(0.95) / 1e3).toFixed(1).padStart(7)} us  ${(1e9 / mean).toFixed(0).padStart(8)} cmds/s  (${note})\n`);
if (out) appendFileSync(out, line); else process.stdout.write(line);
