package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rivumi/rivumi/internal/htmlpage"
)

// WriteHTML writes the summary as one self-contained HTML page: inline
// CSS and inline SVG charts, no script, and a Content-Security-Policy that
// forbids loading anything, so the page opens offline and from a mail
// attachment alike. title heads the page; opts add to it.
func WriteHTML(w io.Writer, s *Summary, title string, opts ...PageOption) error {
	v := newView(s, title)
	for _, o := range opts {
		o(&v)
	}
	return page().Execute(w, v)
}

// A PageOption adds to the page [WriteHTML] writes.
type PageOption func(*view)

// ReplayPage links the page's header to the page of a replay of the
// logs against a candidate policy (`rivumi policy replay --html`): href is
// a URL or a path relative to the report's page. The link is the only
// one on the page; following it is the reader's choice, and nothing is
// loaded from it. An empty href adds nothing.
func ReplayPage(href string) PageOption {
	return func(v *view) { v.ReplayPage = href }
}

// colours of the decisions, in the charts and the legend.
var colours = map[string]string{"allow": "#2e7d32", "ask": "#f9a825", "deny": "#c62828"}

type view struct {
	Title      string
	ReplayPage string
	S          *Summary
	Generated  string
	Range      string
	Totals     []totalView
	TotalBar   []rectView // one horizontal bar split by decision
	Time       timeChart
	RuleChart  ruleChart
}

type totalView struct {
	Decision, Colour, Percent string
	Count, Shadow             int
}

type rectView struct {
	X, Y, W, H float64
	Colour     string
	Title      string
	Decision   string
}

type timeChart struct {
	Width, Height float64
	Bars          []rectView
	Max           int
	First, Last   string
	Per           string
	Buckets       int
}

type ruleChart struct {
	Width, Height float64
	Rows          []ruleRow
}

type ruleRow struct {
	Y, W         float64
	Colour, Rule string
	Title        string
	Decision     string
	Count        int
	Shadow       int
	TextY        float64
}

const (
	chartW = 720.0
	chartH = 200.0
	ruleH  = 22.0
	labelW = 260.0
)

func newView(s *Summary, title string) view {
	v := view{Title: title, S: s, Generated: time.Now().UTC().Format("2006-01-02 15:04 UTC")}
	if !s.From.IsZero() {
		v.Range = stamp(s.From) + " … " + stamp(s.To) + " UTC"
	}
	x := 0.0
	for _, d := range Decisions {
		n := s.Verdicts[d]
		v.Totals = append(v.Totals, totalView{Decision: d, Colour: colours[d], Count: n, Shadow: s.ShadowVerdicts[d], Percent: pct(n, s.Events)})
		if s.Events > 0 && n > 0 {
			wd := chartW * float64(n) / float64(s.Events)
			v.TotalBar = append(v.TotalBar, rectView{X: x, Y: 0, W: wd, H: 28, Colour: colours[d], Decision: d, Title: fmt.Sprintf("%s: %d (%s)", d, n, pct(n, s.Events))})
			x += wd
		}
	}
	v.Time = timeChartOf(s)
	v.RuleChart = ruleChartOf(s)
	return v
}

func timeChartOf(s *Summary) timeChart {
	c := timeChart{Width: chartW, Height: chartH, Buckets: len(s.Buckets), Per: span(s.BucketLen)}
	if len(s.Buckets) == 0 {
		return c
	}
	for _, b := range s.Buckets {
		c.Max = max(c.Max, b.Total())
	}
	if c.Max == 0 {
		return c
	}
	slot := chartW / float64(len(s.Buckets))
	gap := min(2.0, slot/4)
	for i, b := range s.Buckets {
		y := chartH
		for _, d := range []string{"allow", "ask", "deny"} {
			n := b.Counts[d]
			if n == 0 {
				continue
			}
			h := chartH * float64(n) / float64(c.Max)
			y -= h
			c.Bars = append(c.Bars, rectView{
				X: float64(i)*slot + gap/2, Y: y, W: slot - gap, H: h, Colour: colours[d], Decision: d,
				Title: fmt.Sprintf("%s: %d %s", stamp(b.Start), n, d),
			})
		}
	}
	c.First, c.Last = stamp(s.Buckets[0].Start), stamp(s.Buckets[len(s.Buckets)-1].Start)
	return c
}

func ruleChartOf(s *Summary) ruleChart {
	c := ruleChart{Width: chartW, Height: ruleH * float64(len(s.Rules))}
	most := 1
	for _, r := range s.Rules {
		most = max(most, r.Count)
	}
	for i, r := range s.Rules {
		c.Rows = append(c.Rows, ruleRow{
			Y: float64(i) * ruleH, TextY: float64(i)*ruleH + ruleH*0.7,
			W:      (chartW - labelW - 60) * float64(r.Count) / float64(most),
			Colour: colours[r.Decision], Rule: r.Rule, Title: r.Title, Decision: r.Decision, Count: r.Count, Shadow: r.Shadow,
		})
	}
	return c
}

// page is the report's template, parsed on its first use (not at every start
// of every rivumi process); the report tests execute it.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"f":      func(x float64) string { return fmt.Sprintf("%.1f", x) },
		"labelW": func() float64 { return labelW },
		"plus":   func(a, b float64) float64 { return a + b },
		"stamp":  stamp,
		"argv":   argvText,
		"indent": func(n int) string { return strings.Repeat("  ", n) },
		"line":   oneLine,
		"source": sourceName,
	}).Parse(htmlpage.Head + `.muted { color: #666; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: 0.2em 0.6em 0.2em 0; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.3em; vertical-align: -0.05em; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.85em; margin: 0.3em 0 0.8em; }
code { font-size: 0.9em; }
code.example { white-space: pre-wrap; word-break: break-all; }
#replay-link { background: #eef3fb; padding: 0.4em 0.6em; }
svg text { font: 12px system-ui, sans-serif; fill: #333; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="muted">{{if .Range}}{{.Range}} · {{end}}generated {{.Generated}}</p>
{{if .ReplayPage}}<p id="replay-link">Replay of a candidate policy against these decisions: <a href="{{.ReplayPage}}">{{.ReplayPage}}</a></p>{{end}}

<section id="summary">
<h2>Decisions</h2>
<p><strong id="events">{{.S.Events}}</strong> graded commands{{if .S.Shadow}}, <strong id="shadow">{{.S.Shadow}}</strong> of them in shadow mode (graded, not answered — <code>--shadow</code>, or <code>--ask-as pass</code> for asks: what rivumi would have decided){{end}}{{if .S.Overridden}}; {{.S.Overridden}} answered otherwise than the verdict (approved asks, --ask-as){{end}}.</p>
<table id="totals">
<tr><th>verdict</th><th class="n">count</th><th class="n">share</th>{{if .S.Shadow}}<th class="n">of which in shadow mode</th>{{end}}</tr>
{{range .Totals}}<tr><td><span class="swatch" style="background:{{.Colour}}"></span>{{.Decision}}</td><td class="n" data-decision="{{.Decision}}">{{.Count}}</td><td class="n">{{.Percent}}</td>{{if $.S.Shadow}}<td class="n" data-shadow="{{.Decision}}">{{.Shadow}}</td>{{end}}</tr>
{{end}}</table>
{{if .TotalBar}}<svg id="totals-chart" role="img" aria-label="decisions" width="{{f 720.0}}" height="28" viewBox="0 0 720 28">
{{range .TotalBar}}<rect x="{{f .X}}" y="0" width="{{f .W}}" height="28" fill="{{.Colour}}" data-decision="{{.Decision}}"><title>{{.Title}}</title></rect>
{{end}}</svg>{{end}}
{{if .S.Policies}}<p class="muted">Policies: {{range .S.Policies}}<code>{{.}}</code> {{end}}</p>{{end}}
</section>

{{if .S.BySource}}<section id="sources">
<h2>By source</h2>
<table id="source-table">
<tr><th>source</th>{{range $.Totals}}<th class="n"><span class="swatch" style="background:{{.Colour}}"></span>{{.Decision}}</th>{{end}}{{if .S.Shadow}}<th class="n">in shadow mode</th>{{end}}<th class="n">total</th></tr>
{{range $sc := .S.BySource}}<tr><td><code>{{source $sc.Source}}</code></td>{{range $.Totals}}<td class="n" data-source="{{$sc.Source}}" data-verdict="{{.Decision}}">{{index $sc.Verdicts .Decision}}</td>{{end}}{{if $.S.Shadow}}<td class="n">{{$sc.Shadow}}</td>{{end}}<td class="n">{{$sc.Total}}</td></tr>
{{end}}</table>
</section>{{end}}

<section id="over-time">
<h2>Decisions over time{{if .Time.Buckets}} (per {{.Time.Per}}){{end}}</h2>
{{if .Time.Bars}}<svg id="time-chart" role="img" aria-label="decisions over time" width="720" height="{{f (plus .Time.Height 24)}}" viewBox="0 0 720 {{f (plus .Time.Height 24)}}">
<line x1="0" y1="{{f .Time.Height}}" x2="720" y2="{{f .Time.Height}}" stroke="#999"/>
{{range .Time.Bars}}<rect x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}" fill="{{.Colour}}" data-decision="{{.Decision}}"><title>{{.Title}}</title></rect>
{{end}}<text x="0" y="{{f (plus .Time.Height 16)}}">{{.Time.First}}</text>
<text x="720" y="{{f (plus .Time.Height 16)}}" text-anchor="end">{{.Time.Last}}</text>
<text x="4" y="12">max {{.Time.Max}} per {{.Time.Per}}</text>
</svg>
<p class="muted"><span class="swatch" style="background:#2e7d32"></span>allow <span class="swatch" style="background:#f9a825"></span>ask <span class="swatch" style="background:#c62828"></span>deny</p>
{{else}}<p>No timestamps in the log.</p>{{end}}
</section>

<section id="rules">
<h2>Asks and denies by rule</h2>
{{if .RuleChart.Rows}}<svg id="rule-chart" role="img" aria-label="asks and denies by rule" width="720" height="{{f .RuleChart.Height}}" viewBox="0 0 720 {{f .RuleChart.Height}}">
{{range .RuleChart.Rows}}<text x="0" y="{{f .TextY}}">{{.Rule}}</text><rect x="{{f labelW}}" y="{{f (plus .Y 4)}}" width="{{f .W}}" height="14" fill="{{.Colour}}" data-rule="{{.Rule}}"><title>{{.Rule}}: {{.Count}} {{.Decision}}{{if .Title}} — {{.Title}}{{end}}</title></rect><text x="{{f (plus (plus labelW .W) 6)}}" y="{{f .TextY}}">{{.Count}}</text>
{{end}}</svg>
<table id="rule-table">
<tr><th>rule</th><th>verdict</th><th class="n">count</th><th class="n">in shadow mode</th></tr>
{{range .S.Rules}}<tr><td><code>{{.Rule}}</code>{{if .Title}}<br><span class="rule-title" data-rule="{{.Rule}}">{{.Title}}</span>{{end}}{{range .Examples}}<br><span class="muted">e.g. <code class="example">{{line .}}</code></span>{{end}}</td><td>{{.Decision}}</td><td class="n" data-rule="{{.Rule}}" data-verdict="{{.Decision}}">{{.Count}}</td><td class="n">{{.Shadow}}</td></tr>
{{end}}</table>
{{else}}<p>No asks or denies.</p>{{end}}
</section>

<section id="uncovered">
<h2>Most frequent uncovered commands</h2>
{{if .S.Uncovered}}<p class="muted">No rule covers these, so each one asks. Review a rule before pasting it into your rules file.</p>
{{range .S.Uncovered}}<div class="uncovered" data-prefix="{{.Prefix}}">
<p><strong class="n">{{.Count}}</strong> × <code>{{.Prefix}}</code>{{range .Examples}}<br><span class="muted">e.g. <code>{{.}}</code></span>{{end}}</p>
{{if .Rule}}<pre>{{.Rule}}</pre>{{end}}
</div>
{{end}}{{else}}<p>None: every ask came from a rule.</p>{{end}}
</section>

{{if .S.Gate.Runs}}<section id="exec-gate">
<h2>Exec gate</h2>
<p><strong>{{.S.Gate.Runs}}</strong> gated runs made <strong>{{.S.Gate.Execs}}</strong> execs; <strong id="gate-refused">{{.S.Gate.Refused}}</strong> were refused.</p>
{{range .S.Gate.Trees}}<div class="exec-tree">
<p><code>{{.Command}}</code> <span class="muted">{{stamp .Time}} · {{.Source}} · {{.Refused}} of {{.Execs}} execs refused</span></p>
<pre>{{range .Tree}}{{indent .Depth}}{{if .Exec.Allowed}}{{argv .Exec.Argv}}{{else}}<strong data-rule="{{.Exec.Rule}}">{{argv .Exec.Argv}}  ✗ {{.Exec.Rule}}</strong>{{end}}{{if gt .Attempts 1}} <span class="muted">(×{{.Attempts}})</span>{{end}}
{{end}}</pre>
</div>
{{end}}</section>{{end}}

{{if .S.Problems}}<section id="problems">
<h2>Unreadable lines</h2>
<p>{{len .S.Problems}} lines could not be read and are not counted.</p>
<ul>{{range $i, $p := .S.Problems}}{{if lt $i 20}}<li><code>{{$p.String}}</code></li>{{end}}{{end}}</ul>
</section>{{end}}
</body>
</html>
`))
})
