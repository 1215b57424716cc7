// Claude Code 2.1.197's skill argument substitution and command
// extraction, copied from its bundle (functions Pft, O6, T4n and the
// patterns of Bfe; minified names kept in comments) for the differential
// test in hook/claudeskill_test.go. The argument list is given (Uho's
// tree-sitter split is not reproduced here). Input on stdin: a JSON list
// of {text, args, split, names}; output: a JSON list of {text, commands}.
const Bho = "\uFFFF";
function Ux(e) { return e.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }
// O6
function escapeValue(e) { return e.replace(/`!/g, "` !").replace(/!`/g, "! `").replace(/(^|\s)!/gm, "$1\\!"); }
// Pft(e, t, n = !0, r = [], o), with i = the given split
function substitute(e, t, split, r, o) {
  let n = !0;
  if (t === void 0 || t === null) return e;
  let s = (p) => { let f = (p ?? "").replaceAll(Bho, ""); return o ? o(f) : f },
    i = split,
    a = r.map((p, f) => ({ name: p, i: f })).filter((p) => Boolean(p.name)).sort((p, f) => f.name.length - p.name.length),
    l = ["\\d", "ARGUMENTS", ...a.map(({ name: p }) => `${Ux(p)}(?![\\[\\w])`)].join("|"),
    c = e.replace(new RegExp(`(?<!\\\\)\\\\\\$(?=${l})`, "g"), Bho), u = c !== e;
  e = c;
  let d = !1;
  for (let { name: p, i: f } of a) e = e.replace(new RegExp(`\\$${Ux(p)}(?![\\[\\w])`, "g"), () => (d = !0, s(i[f])));
  if (e = e.replace(/\$ARGUMENTS\[(\d+)\]/g, (p, f) => { d = !0; let m = parseInt(f, 10); return s(i[m]) }),
    e = e.replace(/\$(\d+)(?!\w)/g, (p, f) => { d = !0; let m = parseInt(f, 10); return s(i[m]) }),
    e = e.replaceAll("$ARGUMENTS", () => (d = !0, s(t))), !d && n && t) e = e + `
ARGUMENTS: ${s(t)}`;
  if (u) e = e.replaceAll(Bho, "$");
  return e;
}
// T4n
function blank(e) { return e.replace(/`[^`\n]+`/g, (t, n) => { let r = e[n - 1]; return r === "!" || r === "`" ? t : "`" + " ".repeat(t.length - 2) + "`" }) }
// Bfe's vwf and wwf
function commands(e) {
  const i = e.matchAll(/```!\s*\n?([\s\S]*?)\n?```/g), a = e.includes("!`") ? blank(e).matchAll(/(?<=^|\s)!`([^`]+)`/gm) : [];
  const out = [];
  for (const l of [...i, ...a]) { const c = l[1]?.trim(); if (c) out.push(c); }
  return out;
}
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => input += d);
process.stdin.on("end", () => {
  const out = JSON.parse(input).map((c) => {
    const text = substitute(c.text, c.args, c.split || [], c.names || [], escapeValue);
    return { text, commands: commands(text) };
  });
  process.stdout.write(JSON.stringify(out));
});
