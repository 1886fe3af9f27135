package status

// style is the page's one style element; CSP allows it by its hash, so it
// must be written into the page exactly as it is here.
const style = `
body{font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;background:#f4f5f7;color:#1d2430}
header{display:flex;justify-content:space-between;align-items:baseline;padding:10px 24px;background:#1d2430;color:#e8ebf0}
header h1{font-size:18px;margin:0}
header span{font-size:13px;color:#aeb6c4}
main{padding:16px 24px;max-width:1200px}
.base{border-radius:8px;padding:14px 18px;margin-bottom:16px;color:#fff}
.base b{font-size:24px;display:block}
.base.up{background:#1e7f3c}.base.down{background:#b42318}.base.unknown{background:#5b6475}
.tiles{display:flex;flex-wrap:wrap;gap:10px;margin-bottom:18px}
.tile{background:#fff;border:1px solid #d5d9e0;border-radius:8px;padding:8px 14px;min-width:96px}
.tile b{font-size:26px;display:block}
.tile.busy{border-color:#b54708;background:#fffaeb}
h2{font-size:16px;margin:18px 0 6px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #d5d9e0}
th,td{text-align:left;padding:4px 10px;border-bottom:1px solid #eceef2;vertical-align:top;unicode-bidi:isolate;overflow-wrap:anywhere}
th{background:#eceef2;font-weight:600;font-size:13px}
td.n{text-align:right;white-space:nowrap}
tr.failed td{background:#fef3f2}
.none{color:#5b6475;font-style:italic;margin:4px 0}
.tag{font-size:12px;border:1px solid #98a2b3;border-radius:4px;padding:0 4px;margin-left:6px;color:#344054}
.tools{display:flex;flex-wrap:wrap;gap:6px}
.tools span{background:#fff;border:1px solid #d5d9e0;border-radius:4px;padding:2px 8px}
code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:13px}
`

const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="{{.Refresh}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}</title>
<style>` + style + `</style>
</head>
<body>
<header><h1>mcp-bridge {{.Version}}</h1><span>{{if .Serving}}serving {{.Serving}} · {{end}}{{if .Uptime}}up {{.Uptime}} · {{end}}updated {{.Updated}}, every {{.Refresh}} s</span></header>
<main>
<div class="base {{.BaseClass}}" id="base"><b>{{.BaseLine}}</b>base {{.BaseAddr}}{{if .BaseWhy}}: {{.BaseWhy}}{{end}}</div>
<div class="tiles">{{range .Tiles}}<div class="tile{{if .Busy}} busy{{end}}"><b>{{.N}}</b>{{.Label}}</div>{{end}}</div>

<h2>Calls in flight and queued</h2>
{{if .InFlight}}<table id="calls"><tr><th>state</th><th>tool</th><th>client</th><th>for</th></tr>
{{range .InFlight}}<tr><td>{{.State}}</td><td>{{if .Tool}}{{.Tool}}{{else}}{{.Method}}{{end}}</td><td>{{.Client}}</td><td class="n">{{.Wait}}</td></tr>
{{end}}</table>{{else}}<p class="none">No call in flight or queued.</p>{{end}}

<h2>Open questions</h2>
{{if .Questions}}<table id="questions"><tr><th>confirm tool</th><th>for client</th><th>asked by</th><th>waiting</th></tr>
{{range .Questions}}<tr><td>{{.Tool}}</td><td>{{.Client}}</td><td>{{.AskedBy}}</td><td class="n">{{.Wait}}</td></tr>
{{end}}</table>{{else}}<p class="none">No question waits for an answer.</p>{{end}}

<h2>Clients</h2>
{{if .Clients}}<table id="clients"><tr><th>client</th><th>transport</th><th>era</th><th>session</th><th>address</th><th>for</th><th>in progress</th></tr>
{{range .Clients}}<tr><td>{{.Name}}</td><td>{{.Transport}}</td><td>{{.Era}}</td><td><code>{{.Session}}</code></td><td>{{.Address}}</td><td class="n">{{.Since}}</td><td class="n">{{.InProgress}}</td></tr>
{{end}}</table>{{else}}<p class="none">No client connected.</p>{{end}}

<h2>Tools, as clients see them</h2>
{{if .Tools}}<div class="tools" id="tools">{{range .Tools}}<span>{{.Name}}{{if .ReadOnly}}<span class="tag">read-only</span>{{end}}{{if .Confirm}}<span class="tag">asks first</span>{{end}}</span>{{end}}</div>{{else}}<p class="none">No tools listed yet.</p>{{end}}

<h2>Journal, last 50 lines, newest first</h2>
{{if not .JournalOn}}<p class="none">No journal kept (--journal).</p>{{else}}{{if .JournalEr}}<p class="none">{{.JournalEr}}</p>{{end}}
{{if .Journal}}<table id="journal"><tr><th>time</th><th>client</th><th>tool</th><th>outcome</th><th>took</th><th>message</th></tr>
{{range .Journal}}{{if .Raw}}<tr><td colspan="6"><code>{{.Message}}</code></td></tr>{{else}}<tr{{if .Failed}} class="failed"{{end}}><td>{{.Time}}</td><td>{{.Client}}</td><td>{{.Tool}}</td><td>{{.Outcome}}</td><td class="n">{{.Took}}</td><td>{{.Message}}</td></tr>{{end}}
{{end}}</table>{{else}}<p class="none">The journal is empty.</p>{{end}}{{end}}
</main>
</body>
</html>
`
