package replay

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/rivumi/rivumi/internal/htmlpage"
)

// WriteHTML writes s as one self-contained HTML page, in the style of the
// audit report: inline CSS and SVG, no script, and a
// Content-Security-Policy that forbids loading anything, so the page opens
// offline and from a mail attachment or a CI artifact alike. It shows the
// totals, the counts by current → candidate verdict (a matrix and a
// chart), the changes with the commands behind them (as s holds them:
// redacted) — those that became allow first and highlighted —, the rules
// gained and lost, and the lines not replayed by reason. title heads the
// page. s is not modified.
func WriteHTML(w io.Writer, s *Summary, title string) error {
	return htmlPage().Execute(w, newHTMLView(s, title, time.Now()))
}

// colours of the decisions, as in the audit report.
var colours = map[string]string{"allow": "#2e7d32", "ask": "#f9a825", "deny": "#c62828"}

var decisions = []string{"allow", "ask", "deny"}

type htmlView struct {
	Title       string
	S           *Summary
	Generated   string
	Elapsed     string
	BecameAllow int
	Skipped     int
	Matrix      []matrixRow
	Chart       changeChart
	Changes     []changeView
}

type matrixRow struct {
	From  string
	Cells []matrixCell
}

type matrixCell struct {
	From, To string
	Count    int
	Class    string // became-allow, loosens, tightens, rules-only, or "" when empty
}

type changeChart struct {
	Height float64
	Rows   []chartRow
}

type chartRow struct {
	Label       string
	Y, TextY, W float64
	Colour      string
	Count       int
	BecameAllow bool
}

type changeView struct {
	Change
	Class string // as matrixCell.Class
	Note  string // what the change means, in words
	// Unsampled counts the requests of the change its examples do not
	// stand for (distinct commands past Options.Samples).
	Unsampled int
}

const (
	chartW = 720.0
	rowH   = 22.0
	labelW = 130.0
)

// classOf names what a change from → to does.
func classOf(from, to string) string {
	switch {
	case to == "allow" && from != "allow":
		return "became-allow"
	case rank(to) < rank(from):
		return "loosens"
	case rank(to) > rank(from):
		return "tightens"
	}
	return "rules-only"
}

var notes = map[string]string{
	"became-allow": "became allow: the candidate lets these run without asking",
	"loosens":      "more lenient",
	"tightens":     "stricter",
	"rules-only":   "same verdict, other rules",
}

func newHTMLView(s *Summary, title string, now time.Time) htmlView {
	v := htmlView{Title: title, S: s, Generated: now.UTC().Format("2006-01-02 15:04 UTC"),
		Elapsed: s.Elapsed.Round(time.Millisecond).String(), BecameAllow: s.BecameAllow(), Skipped: s.SkippedCount()}
	counts := map[[2]string]int{}
	for _, c := range s.Changes {
		counts[[2]string{c.From, c.To}] += c.Count
	}
	for _, from := range decisions {
		row := matrixRow{From: from}
		for _, to := range decisions {
			cell := matrixCell{From: from, To: to, Count: counts[[2]string{from, to}]}
			if cell.Count > 0 {
				cell.Class = classOf(from, to)
			}
			row.Cells = append(row.Cells, cell)
		}
		v.Matrix = append(v.Matrix, row)
	}
	// The summary lists those that became allow first; the page does
	// whatever order it is handed.
	changes := slices.Clone(s.Changes)
	slices.SortStableFunc(changes, func(a, b Change) int { return -cmpBool(a.BecameAllow(), b.BecameAllow()) })
	most := 1
	for _, c := range changes {
		most = max(most, c.Count)
	}
	for i, c := range changes {
		cls := classOf(c.From, c.To)
		cv := changeView{Change: c, Class: cls, Note: notes[cls], Unsampled: c.Count}
		for _, e := range c.Examples {
			cv.Unsampled -= e.Count
		}
		v.Changes = append(v.Changes, cv)
		v.Chart.Rows = append(v.Chart.Rows, chartRow{
			Label: c.From + " → " + c.To, Y: float64(i) * rowH, TextY: float64(i)*rowH + rowH*0.7,
			W:      (chartW - labelW - 70) * float64(c.Count) / float64(most),
			Colour: colours[c.To], Count: c.Count, BecameAllow: c.BecameAllow(),
		})
	}
	v.Chart.Height = rowH * float64(len(changes))
	return v
}

// htmlPage is the page's template, parsed on its first use.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("replay").Funcs(template.FuncMap{
		"f":      func(x float64) string { return fmt.Sprintf("%.1f", x) },
		"plus":   func(a, b float64) float64 { return a + b },
		"labelW": func() float64 { return labelW },
		"colour": func(d string) string { return colours[d] },
		"line":   oneLine,
		"ids":    ids,
		"none":   orNone,
	}).Parse(htmlpage.Head + `h3 { font-size: 1em; margin: 0 0 0.3em; }
.muted { color: #666; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: 0.2em 0.6em 0.2em 0; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.3em; vertical-align: -0.05em; }
code { font-size: 0.9em; white-space: pre-wrap; word-break: break-all; }
svg text { font: 12px system-ui, sans-serif; fill: #333; }
#matrix td.n, #matrix th.n { width: 6em; }
#matrix td.became-allow { background: #fdecea; color: #b71c1c; font-weight: bold; }
#matrix td.loosens { background: #fff8e1; }
#matrix td.tightens { background: #eef3fb; }
.change { border-left: 4px solid #bbb; padding: 0.4em 0.8em; margin: 0.8em 0; }
.change.became-allow { border-left-color: #c62828; background: #fdecea; }
.change.loosens { border-left-color: #f9a825; background: #fffaf0; }
.change.tightens { border-left-color: #1565c0; }
.change ul { margin: 0.2em 0; padding-left: 1.2em; }
.badge { display: inline-block; font-size: 0.8em; padding: 0 0.5em; border-radius: 0.6em; background: #c62828; color: #fff; vertical-align: 0.1em; }
.alert { color: #b71c1c; font-weight: bold; }
svg text.alert { fill: #b71c1c; font-weight: bold; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="muted">policy <code>{{none .S.Current}}</code> (current) → <code>{{none .S.Candidate}}</code> (candidate) · replayed in {{.Elapsed}} · generated {{.Generated}}</p>

<section id="summary">
<h2>Summary</h2>
<p><strong id="replayed">{{.S.Replayed}}</strong> requests replayed from <strong id="lines">{{.S.Lines}}</strong> lines{{if .Skipped}}; <strong id="skipped">{{.Skipped}}</strong> not replayable (see below){{end}}.</p>
<table id="totals">
<tr><th>with the candidate</th><th class="n">requests</th></tr>
<tr><td>verdict or rules changed</td><td class="n" id="changed">{{.S.Changed}}</td></tr>
<tr><td>unchanged</td><td class="n" id="unchanged">{{.S.Unchanged}}</td></tr>
<tr><td{{if .BecameAllow}} class="alert"{{end}}>became allow (asked or denied now)</td><td class="n{{if .BecameAllow}} alert{{end}}" id="became-allow">{{.BecameAllow}}</td></tr>
</table>
{{if .S.Drift}}<p class="muted" id="drift">Note: {{.S.Drift}} requests get another verdict from the current policy than the log recorded (the policy in force changed since).</p>{{end}}
</section>

<section id="by-verdict">
<h2>Changes by verdict</h2>
{{if .S.Changes}}<table id="matrix">
<tr><th>current ↓ / candidate →</th>{{range $.Matrix}}<th class="n"><span class="swatch" style="background:{{colour .From}}"></span>{{.From}}</th>{{end}}</tr>
{{range .Matrix}}<tr><th><span class="swatch" style="background:{{colour .From}}"></span>{{.From}}</th>{{range .Cells}}<td class="n {{.Class}}" data-from="{{.From}}" data-to="{{.To}}">{{if .Count}}{{.Count}}{{else}}·{{end}}</td>{{end}}</tr>
{{end}}</table>
<p class="muted">Changed requests only; on the diagonal, the verdict stayed and the rules that decided it changed.</p>
<svg id="change-chart" role="img" aria-label="changes by verdict" width="720" height="{{f .Chart.Height}}" viewBox="0 0 720 {{f .Chart.Height}}">
{{range .Chart.Rows}}<text x="0" y="{{f .TextY}}"{{if .BecameAllow}} class="alert"{{end}}>{{.Label}}</text><rect x="{{f labelW}}" y="{{f (plus .Y 4)}}" width="{{f .W}}" height="14" fill="{{.Colour}}"{{if .BecameAllow}} stroke="#b71c1c" stroke-width="2"{{end}} data-change="{{.Label}}"><title>{{.Label}}: {{.Count}}</title></rect><text x="{{f (plus (plus labelW .W) 6)}}" y="{{f .TextY}}">{{.Count}}</text>
{{end}}</svg>
{{else}}<p id="no-change">The candidate changes no verdict and no rule of the replayed requests.</p>{{end}}
</section>

{{if .Changes}}<section id="changes">
<h2>Commands behind each change</h2>
<p class="muted">Commands as logged, secrets redacted; the most frequent distinct commands of each change ({{len .Changes}} changes).</p>
{{range .Changes}}<div class="change {{.Class}}" data-from="{{.From}}" data-to="{{.To}}">
<h3>{{.From}} → {{.To}} <span class="count">{{.Count}}</span>{{if .BecameAllow}} <span class="badge">became allow</span>{{else}} <span class="muted">{{.Note}}</span>{{end}}</h3>
<ul>{{range .Examples}}<li><code>{{line .Command}}</code>{{if gt .Count 1}} <span class="muted">(×{{.Count}})</span>{{end}}<br><span class="muted">{{.File}}:{{.Line}}{{if .Source}} · {{.Source}}{{end}} · rules {{ids .Before}} → {{ids .After}}</span></li>
{{end}}</ul>{{if gt .Unsampled 0}}<p class="muted">… and {{.Unsampled}} more requests with other commands (not kept: --samples).</p>{{end}}
</div>
{{end}}</section>{{end}}

{{if .S.Rules}}<section id="rules">
<h2>By rule</h2>
<table id="rule-table">
<tr><th>rule</th><th class="n">now fires on</th><th class="n">no longer fires on</th></tr>
{{range .S.Rules}}<tr><td><code>{{.Rule}}</code>{{if .Title}}<br><span class="rule-title" data-rule="{{.Rule}}">{{.Title}}</span>{{end}}</td><td class="n" data-rule="{{.Rule}}" data-gained>{{if .Gained}}+{{.Gained}}{{else}}0{{end}}</td><td class="n" data-rule="{{.Rule}}" data-lost>{{if .Lost}}−{{.Lost}}{{else}}0{{end}}</td></tr>
{{end}}</table>
<p class="muted">Counted over the changed requests.</p>
</section>{{end}}

{{if .S.Skipped}}<section id="skipped-lines">
<h2>Not replayable</h2>
<p>These lines hold a request that was not graded again; a redacted command is never guessed.</p>
<table id="skip-table">
<tr><th class="n">lines</th><th>reason</th></tr>
{{range .S.Skipped}}<tr><td class="n" data-reason="{{.Reason}}">{{.Count}}</td><td>{{.Reason}}{{range .Lines}}<br><span class="muted">{{.File}}:{{.Line}}{{if .Detail}}: <code>{{line .Detail}}</code>{{end}}</span>{{end}}</td></tr>
{{end}}</table>
</section>{{end}}
</body>
</html>
`))
})
