/**
 * The dashboard `floe serve` shows at `/`: server-rendered HTML with hand-made SVG charts, one small
 * inline script (table sorting, and the run/pause buttons, which POST to the JSON API with the session
 * cookie). Nothing is loaded from elsewhere; every value from a table or config is escaped.
 */
import { formatBytes } from '../../../util/units.js';
import type { TableListEntry } from './api.js';
import type { RunRecord } from './state-db.js';
import type { TableDetail } from './table-detail.js';
import type { RunValues } from './run-history-value.js';
import type { Why } from './why.js';
import type { PlanSummary } from '../../orchestration/job-types.js';
import { barChart, escapeHtml as e, lineChart, type Series } from './svg-charts.js';

const CSS = `
:root { --fg:#1d2430; --muted:#5f6b7a; --line:#e3e7ee; --bg:#f6f8fb; --card:#fff; --blue:#3b6fd8; --green:#1f9d63; --amber:#d68a00; --red:#d64545; --violet:#7b5cd6; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color:var(--fg); background:var(--bg); }
header { background:#172033; color:#fff; padding:12px 28px; display:flex; align-items:center; gap:18px; }
header a { color:#fff; text-decoration:none; } header .brand { font-weight:700; font-size:18px; letter-spacing:.3px; }
header .sub { color:#aab4c8; font-size:13px; } header form { margin-left:auto; }
main { padding:22px 28px 40px; max-width:1440px; margin:0 auto; }
h1 { font-size:22px; margin:0 0 4px; } h2 { font-size:16px; margin:0 0 12px; }
.muted { color:var(--muted); } .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:12.5px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:16px 18px; margin-bottom:18px; }
.grid2 { display:grid; grid-template-columns: 1fr 1fr; gap:18px; } .grid2 > .card { margin-bottom:0; }
.stats { display:flex; gap:12px; flex-wrap:wrap; margin:14px 0 18px; }
.stat { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:10px 16px; min-width:130px; }
.stat .v { font-size:20px; font-weight:650; } .stat .k { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.4px; }
table.list { width:100%; border-collapse:collapse; background:var(--card); }
table.list th, table.list td { padding:8px 9px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
table.list th { font-size:12px; text-transform:uppercase; letter-spacing:.4px; color:var(--muted); background:#fafbfd; white-space:nowrap; }
table.list th[data-sort] { cursor:pointer; user-select:none; } table.list th[data-sort]:hover { color:var(--fg); }
table.list th.sorted-asc::after { content:" ▲"; } table.list th.sorted-desc::after { content:" ▼"; }
table.list td.num, table.list th.num { text-align:right; font-variant-numeric: tabular-nums; }
table.list tr:hover td { background:#fafcff; }
a { color:var(--blue); } a.table-link { font-weight:600; text-decoration:none; } a.table-link:hover { text-decoration:underline; }
.badge { display:inline-block; padding:1px 8px; border-radius:999px; font-size:12px; font-weight:600; border:1px solid transparent; white-space:nowrap; }
.b-ok { background:#e6f6ee; color:#137a4b; } .b-fail { background:#fdeaea; color:#b02a2a; } .b-warn { background:#fff4de; color:#94600a; }
.b-info { background:#e9effc; color:#2b56b3; } .b-muted { background:#eef0f4; color:#5f6b7a; } .b-cancel { background:#f1ecfb; color:#5c3db8; }
.health { display:flex; align-items:center; gap:8px; min-width:128px; }
.bar { flex:1; height:8px; background:#eef0f4; border-radius:4px; overflow:hidden; min-width:60px; } .bar > span { display:block; height:100%; border-radius:4px; }
.score { font-weight:650; width:38px; text-align:right; font-variant-numeric: tabular-nums; }
.buttons { display:flex; gap:8px; flex-wrap:wrap; margin-top:12px; }
button { font:inherit; font-weight:600; border-radius:7px; padding:7px 14px; border:1px solid #c9d2e0; background:#fff; color:var(--fg); cursor:pointer; }
button:hover { background:#f3f6fb; } button.primary { background:var(--blue); border-color:var(--blue); color:#fff; } button.primary:hover { background:#2f5fc4; }
button.warn { border-color:#e6b45a; color:#8a5800; } #action-status { margin-top:10px; min-height:20px; }
.trail { list-style:none; padding:0; margin:6px 0 0; } .trail li { padding:3px 0 3px 10px; border-left:3px solid var(--line); margin:2px 0; }
.trail li.pass, .trail li.pick { border-color:var(--green); } .trail li.fail { border-color:var(--red); } .trail li.skip { border-color:var(--amber); } .trail li.info { border-color:#9fb3d9; }
.trail .gate { font-weight:600; margin-right:6px; }
details { margin:6px 0; } summary { cursor:pointer; }
.hist-grid { display:grid; grid-template-columns: repeat(auto-fill, minmax(370px, 1fr)); gap:12px; }
.hist-grid .cell { border:1px solid var(--line); border-radius:8px; padding:8px; }
svg.chart { max-width:100%; height:auto; } svg .grid { stroke:#edf0f5; } svg .axis { stroke:#b8c1cf; }
svg .tick { font-size:10.5px; fill:#6b7686; } svg .value { font-size:10.5px; fill:#1d2430; font-weight:600; } svg .chart-title { font-size:13px; font-weight:650; fill:#1d2430; }
svg .legend { font-size:11.5px; fill:#3c4656; } svg .empty { font-size:13px; fill:#8a94a3; }
.login { max-width:420px; margin:80px auto; } .login input { width:100%; font:inherit; padding:8px 10px; border:1px solid #c9d2e0; border-radius:7px; margin:10px 0; }
.error { color:#b02a2a; } .nowrap { white-space:nowrap; }
.loc { max-width:240px; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
`;

function layout(title: string, body: string, opts: { signedIn?: boolean } = {}): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)} · floe</title><style>${CSS}</style></head><body>
<header><a class="brand" href="/">floe</a><span class="sub">self-optimizing table maintenance</span>${
    opts.signedIn === false
      ? ''
      : `<form method="post" action="/logout"><button type="submit" style="padding:4px 10px;font-weight:500">Sign out</button></form>`
  }</header>
<main>${body}</main>${SCRIPT}</body></html>`;
}

/** Sorting (click a header) and the action buttons (POST to the API, then show the answer). */
const SCRIPT = `<script>
document.querySelectorAll('table.list[data-sortable]').forEach(function (table) {
  var ths = table.querySelectorAll('th[data-sort]');
  ths.forEach(function (th, i) {
    th.addEventListener('click', function () {
      var col = Array.prototype.indexOf.call(th.parentNode.children, th);
      var asc = !th.classList.contains('sorted-asc');
      ths.forEach(function (x) { x.classList.remove('sorted-asc', 'sorted-desc'); });
      th.classList.add(asc ? 'sorted-asc' : 'sorted-desc');
      var rows = Array.prototype.slice.call(table.tBodies[0].rows);
      var num = th.getAttribute('data-sort') === 'num';
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
        var c = num ? (parseFloat(x) - parseFloat(y)) : String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
      rows.forEach(function (r) { table.tBodies[0].appendChild(r); });
    });
  });
});
document.querySelectorAll('button[data-post]').forEach(function (b) {
  b.addEventListener('click', function () {
    var out = document.getElementById('action-status');
    out.textContent = 'Sending…';
    fetch(b.getAttribute('data-post'), { method: 'POST', credentials: 'same-origin' }).then(function (r) {
      return r.json().then(function (body) { return { status: r.status, body: body }; });
    }).then(function (x) {
      var b2 = x.body || {};
      var text = b2.error || (b2.status === 'accepted' ? (b2.started ? 'Started' : 'Accepted, not started yet: ' + b2.reason) + (b2.dryRun ? ' (dry run)' : '') : (b2.reason || (b2.paused === true ? 'Paused' : b2.paused === false ? 'Resumed' : 'Done')));
      out.textContent = 'HTTP ' + x.status + ': ' + text;
      out.className = x.status >= 400 ? 'error' : 'muted';
      if (x.status < 400 && b.hasAttribute('data-reload')) setTimeout(function () { location.reload(); }, 1500);
    }).catch(function (err) { out.textContent = String(err); out.className = 'error'; });
  });
});
</script>`;

export function renderLoginPage(error?: string): string {
  return layout(
    'Sign in',
    `<div class="card login"><h1>Sign in</h1><p class="muted">Paste the service's API token (<span class="mono">FLOE_API_TOKEN</span>). It is exchanged for a session cookie.</p>
<form method="post" action="/login"><input type="password" name="token" autocomplete="current-password" placeholder="API token" aria-label="API token" required autofocus>
<button class="primary" type="submit">Sign in</button></form>${error ? `<p class="error">${e(error)}</p>` : ''}</div>`,
    { signedIn: false },
  );
}

const scoreColor = (s: number) => (s >= 85 ? 'var(--green)' : s >= 60 ? 'var(--amber)' : 'var(--red)');

function healthCell(score: number | undefined): string {
  if (score === undefined) return `<td data-v="101"><span class="muted">unknown</span></td>`;
  return `<td data-v="${score}"><div class="health"><span class="score">${score.toFixed(1)}</span><div class="bar"><span style="width:${Math.max(2, score)}%;background:${scoreColor(score)}"></span></div></div></td>`;
}

function statusBadges(t: TableListEntry): string {
  const out: string[] = [];
  if (t.paused) out.push('<span class="badge b-warn">paused</span>');
  if (t.running) out.push(`<span class="badge b-info">running ${e(t.running.job)}</span>`);
  const failing = Object.entries(t.jobs).filter(([, j]) => j.consecutiveFailures > 0);
  for (const [k, j] of failing)
    out.push(
      `<span class="badge b-fail" title="${e(j.lastError ?? '')}">${e(k)} failing ×${j.consecutiveFailures}</span>`,
    );
  if (out.length === 0) out.push('<span class="badge b-ok">ok</span>');
  return out.join(' ');
}

export function renderTableListPage(tables: TableListEntry[], health: Record<string, unknown>): string {
  const sorted = [...tables].sort(
    (a, b) => (a.health?.score ?? 101) - (b.health?.score ?? 101) || a.name.localeCompare(b.name),
  );
  const rows = sorted.map((t) => {
    const compact = t.jobs.compact;
    const nextDue = Object.values(t.jobs)
      .map((j) => j.nextRunAt ?? j.nextDueAt)
      .filter((x): x is string => !!x && x !== 'never')
      .sort()[0];
    return `<tr data-table="${e(t.name)}">
${healthCell(t.health?.score)}
<td data-v="${e(t.name)}"><a class="table-link" href="/tables/${encodeURIComponent(t.name)}">${e(t.name)}</a><div class="muted mono loc" title="${e(t.location)}">${e(t.location)}</div>${t.healthError ? `<div class="error" style="font-size:12px">${e(t.healthError.slice(0, 160))}</div>` : ''}</td>
<td data-v="${t.paused ? 2 : Object.values(t.jobs).some((j) => j.consecutiveFailures > 0) ? 1 : 0}">${statusBadges(t)}</td>
<td data-v="${e(t.format ?? '')}">${e(t.format ?? '—')}</td>
<td data-v="${e(t.source)}">${e(t.source)}</td>
<td class="num" data-v="${t.health?.dataFiles ?? -1}">${t.health ? t.health.dataFiles : '—'}</td>
<td class="num" data-v="${t.health?.smallFiles ?? -1}">${t.health ? t.health.smallFiles : '—'}</td>
<td class="num" data-v="${t.health?.deleteFiles ?? -1}">${t.health ? t.health.deleteFiles : '—'}</td>
<td class="num nowrap" data-v="${t.health?.dataBytes ?? -1}">${t.health ? formatBytes(t.health.dataBytes) : '—'}</td>
<td class="nowrap" data-v="${e(compact?.lastSuccessAt ?? '')}" title="${e(compact?.lastSuccessAt ?? '')}">${compact?.lastSuccessAt ? e(compactTime(compact.lastSuccessAt)) : '<span class="muted">never</span>'}</td>
<td class="nowrap" data-v="${e(nextDue ?? '~')}" title="${e(nextDue ?? '')}">${nextDue ? e(compactTime(nextDue)) : '—'}</td>
<td class="why nowrap" data-v="${e(compact?.why?.code ?? '')}" title="${e(compact?.why?.reason ?? '')}">${compact?.why ? `<span class="badge ${WHY_BADGE[compact.why.code] ?? 'b-muted'}">${e(compact.why.code)}</span>` : '—'}</td></tr>`;
  });
  const totalFiles = tables.reduce((n, t) => n + (t.health?.dataFiles ?? 0), 0);
  const totalDeletes = tables.reduce((n, t) => n + (t.health?.deleteFiles ?? 0), 0);
  const paused = tables.filter((t) => t.paused).length;
  const failing = tables.filter((t) => Object.values(t.jobs).some((j) => j.consecutiveFailures > 0)).length;
  const body = `<h1>Tables</h1><div class="muted">Service ${e(String(health.status))} since ${e(shortTime(String(health.startedAt)))} · sorted by health, worst first (click a column to sort) · times in UTC</div>
<div class="stats">
<div class="stat"><div class="k">Tables</div><div class="v" id="stat-tables">${tables.length}</div></div>
<div class="stat"><div class="k">Data files</div><div class="v">${totalFiles}</div></div>
<div class="stat"><div class="k">Delete files</div><div class="v">${totalDeletes}</div></div>
<div class="stat"><div class="k">Paused</div><div class="v">${paused}</div></div>
<div class="stat"><div class="k">Failing</div><div class="v" style="color:${failing ? 'var(--red)' : 'inherit'}">${failing}</div></div>
</div>
<div class="card" style="padding:0;overflow:auto"><table class="list" id="tables" data-sortable>
<thead><tr><th data-sort="num" class="sorted-asc">Health</th><th data-sort="text">Table</th><th data-sort="num">Status</th><th data-sort="text">Format</th><th data-sort="text">Source</th><th data-sort="num" class="num">Files</th><th data-sort="num" class="num">Small</th><th data-sort="num" class="num">Deletes</th><th data-sort="num" class="num">Size</th><th data-sort="text">Last compaction</th><th data-sort="text">Next run</th><th data-sort="text" title="why the compaction runs or waits now">Why</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>`;
  return layout('Tables', body);
}

/** "12-01 09:39" (UTC): enough for a list; the full time is the cell's title. */
function compactTime(iso: string): string {
  if (!iso || iso === 'never') return 'never';
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

function shortTime(iso: string): string {
  if (!iso || iso === 'never') return 'never';
  return iso
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:\d\dZ$/, ' UTC');
}

const outcomeBadge = (r: RunRecord) =>
  `<span class="badge ${r.outcome === 'ok' ? 'b-ok' : r.outcome === 'partial' ? 'b-warn' : r.outcome === 'cancelled' ? 'b-cancel' : r.outcome === 'busy' ? 'b-muted' : 'b-fail'}">${e(r.outcome)}</span>${r.dryRun ? ' <span class="badge b-muted">dry run</span>' : ''}`;

function renderPlan(plan: PlanSummary | undefined, title: string, note: string): string {
  if (!plan) return `<div class="card"><h2>${e(title)}</h2><p class="muted">${e(note)}</p></div>`;
  const tasks = plan.taskList
    .map(
      (t) =>
        `<details><summary><span class="badge b-info">${e(t.kind)}</span> <span class="mono">${e(t.partition)}</span> — ${t.inputFiles} files, ${formatBytes(t.inputBytes)}${t.deletes ? `, ${t.deletes} delete files` : ''}</summary>${trail(t.trail)}</details>`,
    )
    .join('');
  return `<div class="card plan"><h2>${e(title)}</h2><p class="muted">${e(note)} Planner <b>${e(plan.planner)}</b>: ${plan.tasks} task(s), ${plan.inputFiles} input files, ${formatBytes(plan.inputBytes)}.</p>
<h3 style="font-size:13px;margin:10px 0 0">Decision trail</h3>${trail(plan.trail)}${tasks ? `<h3 style="font-size:13px;margin:14px 0 4px">Tasks${plan.tasks > plan.taskList.length ? ` (first ${plan.taskList.length} of ${plan.tasks})` : ''}</h3>${tasks}` : ''}</div>`;
}

const trail = (steps: PlanSummary['trail']) =>
  steps.length === 0
    ? '<p class="muted">no decisions recorded</p>'
    : `<ul class="trail">${steps.map((s) => `<li class="${e(s.outcome)}"><span class="gate">${e(s.gate)}</span>${e(s.detail)}</li>`).join('')}</ul>`;

export function renderTablePage(
  t: TableListEntry,
  detail: (TableDetail & { paused: boolean }) | { error: string },
  runs: RunRecord[],
  values?: RunValues,
  budget?: Record<string, unknown>,
): string {
  const name = encodeURIComponent(t.name);
  const ok = !('error' in detail);
  const d = ok ? (detail as TableDetail) : undefined;
  const jobs = Object.entries(t.jobs);
  const header = `<div style="display:flex;align-items:flex-start;gap:16px;flex-wrap:wrap"><div style="flex:1;min-width:300px">
<div class="muted"><a href="/">Tables</a> /</div><h1 id="table-name">${e(t.name)}</h1>
<div class="mono muted">${e(t.location)}</div>
<div style="margin-top:6px">${d ? `<span class="badge b-muted">${e(d.format)} v${d.formatVersion}</span> ` : ''}<span class="badge b-muted">source: ${e(t.source)}</span> ${statusBadges(t)}</div></div>
<div class="card" style="margin:0;min-width:320px"><h2>Actions</h2>
<div class="buttons">${
    t.jobs.compact
      ? `<button data-post="/api/tables/${name}/run/compact?dryRun=true" data-reload id="btn-dry-run">Dry-run compaction</button><button class="primary" data-post="/api/tables/${name}/run/compact?dryRun=false" data-reload id="btn-run">Compact now</button>`
      : ''
  }${t.paused ? `<button data-post="/api/tables/${name}/resume" data-reload id="btn-resume">Resume</button>` : `<button class="warn" data-post="/api/tables/${name}/pause" data-reload id="btn-pause">Pause</button>`}</div>
<div id="action-status" class="muted"></div><div class="muted" style="font-size:12px;margin-top:4px">Runs wait for a free slot of the service's concurrency. A paused table gets no scheduled runs; dry runs still work.</div></div></div>`;

  const jobsCard = `<div class="card"><h2>Jobs</h2><table class="list"><thead><tr><th>Job</th><th>Schedule</th><th>Last run</th><th>Next run</th><th>Last success</th><th>Failures</th><th>Why (not) now</th><th></th></tr></thead><tbody>${jobs
    .map(
      ([k, j]) =>
        `<tr><td><b>${e(k)}</b></td><td class="mono">${e(j.schedule)}</td><td>${j.lastRunAt ? e(shortTime(j.lastRunAt)) : '<span class="muted">never</span>'}${j.ranBecause ? `<div class="muted" style="font-size:12px">${e(j.ranBecause)}</div>` : ''}</td><td>${(j.nextRunAt ?? j.nextDueAt) ? e(shortTime((j.nextRunAt ?? j.nextDueAt)!)) : t.running?.job === k ? 'running' : '—'}</td><td>${j.lastSuccessAt ? e(shortTime(j.lastSuccessAt)) : '<span class="muted">never</span>'}</td><td>${j.consecutiveFailures}</td><td id="why-${e(k)}">${whyCell(j.why)}</td><td>${
          t.jobs[k] && k !== 'compact'
            ? `<button data-post="/api/tables/${name}/run/${e(k)}?dryRun=true" data-reload>Dry run</button>`
            : ''
        }${j.lastError ? `<div class="error" style="font-size:12px">${e(j.lastError.slice(0, 300))}</div>` : ''}</td></tr>`,
    )
    .join('')}</tbody></table></div>`;

  let stats = '';
  let charts = '';
  if (d) {
    const h = d.health;
    stats = `<div class="stats">
<div class="stat"><div class="k">Health</div><div class="v" style="color:${scoreColor(h.score)}" id="health-score">${h.score.toFixed(1)}</div></div>
<div class="stat"><div class="k">Data files</div><div class="v" id="data-files">${h.dataFiles}</div></div>
<div class="stat"><div class="k">Small files</div><div class="v">${h.smallFiles}</div></div>
<div class="stat"><div class="k">Delete files</div><div class="v" id="delete-files">${h.deleteFiles}</div></div>
<div class="stat"><div class="k">Data size</div><div class="v">${formatBytes(h.dataBytes)}</div></div>
<div class="stat"><div class="k">Rows</div><div class="v">${h.records}</div></div>
<div class="stat"><div class="k">Snapshots</div><div class="v">${d.snapshotCount}</div></div>
<div class="stat"><div class="k">Partitions</div><div class="v">${d.partitionCount}</div></div></div>`;
    const accent = { indexes: [0, 1, 2], color: '#e0894a' };
    const parts = d.partitions.slice(0, 12);
    charts = `<div class="grid2"><div class="card"><h2>File sizes</h2>${barChart(d.histogram, d.sizeBuckets, { title: 'Live data files by size (whole table)', accent })}<div class="muted" style="font-size:12px">Orange: files under 8 MiB.</div></div>
<div class="card"><h2>Files over time</h2>${lineChart(historySeries(runs), { title: 'Data and delete files, from compaction runs', empty: 'no compaction has run yet' })}</div></div>
<div class="card" style="margin-top:18px"><h2>File sizes per partition <span class="muted" style="font-weight:400">(${parts.length} of ${d.partitionCount}, worst health first)</span></h2><div class="hist-grid">${parts
      .map(
        (p) =>
          `<div class="cell"><div class="mono" style="font-size:12px;margin-bottom:2px">${e(p.partition)}</div><div class="muted" style="font-size:12px">${p.dataFiles} files · ${formatBytes(p.dataBytes)} · ${p.deleteFiles} delete files · health ${p.score.toFixed(1)}</div>${barChart(p.histogram, d.sizeBucketsShort, { width: 360, height: 140, accent })}</div>`,
      )
      .join('')}</div></div>`;
    const kinds = Object.entries(d.deleteFiles.byKind);
    charts += `<div class="card"><h2>Delete files</h2>${
      kinds.length === 0
        ? '<p class="muted">No live delete files.</p>'
        : `<p>${kinds.map(([k, v]) => `<span class="badge b-muted">${e(k)}: ${v.files} files, ${v.records} rows, ${formatBytes(v.bytes)}</span>`).join(' ')}</p><details><summary>Files (${Math.min(d.deleteFiles.files.length, 100)} of ${d.deleteFiles.count})</summary><table class="list"><thead><tr><th>Kind</th><th>Partition</th><th class="num">Rows</th><th class="num">Size</th><th>Path</th></tr></thead><tbody>${d.deleteFiles.files
            .map(
              (f) =>
                `<tr><td>${e(f.kind)}</td><td class="mono">${e(f.partition)}</td><td class="num">${f.records}</td><td class="num">${formatBytes(f.bytes)}</td><td class="mono">${e(f.path)}</td></tr>`,
            )
            .join('')}</tbody></table></details>`
    }</div>`;
  } else {
    stats = `<div class="card error">Cannot read the table: ${e((detail as { error: string }).error)}</div>`;
  }

  const lastReal = runs.find((r) => r.job === 'compact' && !r.dryRun && r.plan);
  const plans = `<div class="grid2">${renderPlan(d?.pendingPlan, 'Pending plan', d?.pendingPlanError ? `The dry run failed: ${d.pendingPlanError}` : 'What a compaction would do now (dry run).')}${renderPlan(
    lastReal?.plan,
    'Last plan',
    lastReal
      ? `Run #${lastReal.id} at ${shortTime(new Date(lastReal.startedAtMs).toISOString())}, ${lastReal.outcome}.`
      : 'No compaction has committed yet.',
  )}</div>`;

  const history = `<div class="card" style="margin-top:18px"><h2>Run history</h2>${
    runs.length === 0
      ? '<p class="muted">No runs yet.</p>'
      : `<table class="list" id="runs"><thead><tr><th>#</th><th>Started</th><th>Job</th><th>Reason</th><th>Outcome</th><th class="num">Duration</th><th class="num">Files before → after</th><th class="num">Deletes before → after</th><th class="num">Read / written</th><th>Error</th></tr></thead><tbody>${runs
          .slice(0, 100)
          .map(
            (r) =>
              `<tr data-outcome="${e(r.outcome)}"><td>${r.id ?? ''}</td><td class="nowrap">${e(shortTime(new Date(r.startedAtMs).toISOString()))}</td><td>${e(r.job)}</td><td>${e(r.reason)}</td><td>${outcomeBadge(r)}</td><td class="num">${(r.durationMs / 1000).toFixed(1)} s</td><td class="num">${arrow(r.filesBefore, r.filesAfter)}</td><td class="num">${arrow(
                r.deleteFilesBefore,
                r.deleteFilesAfter,
              )}</td><td class="num">${r.bytesRead !== undefined ? `${formatBytes(r.bytesRead)} / ${formatBytes(r.bytesWritten ?? 0)}` : '—'}</td><td class="error" style="font-size:12px;max-width:360px">${e((r.error ?? '').slice(0, 300))}</td></tr>`,
          )
          .join('')}</tbody></table>`
  }</div>`;
  return layout(t.name, header + stats + charts + valueCard(values, budget) + plans + history + jobsCard);
}

const WHY_BADGE: Partial<Record<string, string>> = {
  running: 'b-info',
  due: 'b-info',
  'budget-spent': 'b-warn',
  'cap-reached': 'b-warn',
  paused: 'b-warn',
  'backing-off': 'b-fail',
  busy: 'b-muted',
};

function whyCell(w: Why | null | undefined): string {
  if (!w) return '—';
  return `<span class="badge ${WHY_BADGE[w.code] ?? 'b-muted'}">${e(w.code)}</span> <span style="font-size:12px">${e(w.reason)}</span>`;
}

/** Cost and benefit of the table's runs over time (two charts: what each run spent, what it saved) and per day. */
function valueCard(v: RunValues | undefined, budget: Record<string, unknown> | undefined): string {
  if (!v) return '';
  // bytes in the unit that suits the largest run; money is in the per-day table
  const maxBytes = Math.max(0, ...v.runs.map((r) => r.bytes));
  const [unit, div] =
    maxBytes >= 1024 ** 3 ? ['GiB', 1024 ** 3] : maxBytes >= 1024 ** 2 ? ['MiB', 1024 ** 2] : ['KiB', 1024];
  const cost: Series = { name: `${unit} read + written`, color: '#e0894a', points: [] };
  const cpu: Series = { name: 'CPU-s', color: '#7a52c7', points: [] };
  const saved: Series = { name: 'file opens saved', color: '#2f9e66', points: [] };
  for (const r of v.runs) {
    const x = Date.parse(r.at);
    cost.points.push({ x, y: r.bytes / div });
    cpu.points.push({ x, y: r.cpuSeconds });
    if (r.job === 'compact') saved.points.push({ x, y: r.fileOpensSaved });
  }
  const days = v.perDay
    .slice(-14)
    .reverse()
    .map(
      (d) =>
        `<tr><td class="nowrap">${e(d.day)}</td><td class="num">${d.runs}</td><td class="num">${formatBytes(d.bytes)}</td><td class="num">${d.cpuSeconds.toFixed(1)}</td><td class="num">${d.money.toFixed(4)} ${e(v.currency)}</td><td class="num">${d.fileOpensSaved}</td></tr>`,
    )
    .join('');
  const spent = budget?.spent as { bytes: number; cpuSeconds: number; money: number } | undefined;
  const budgetLine = spent
    ? `<p class="muted" id="budget-line">Service budget this ${e(String(budget!.per))}: ${formatBytes(spent.bytes)}, ${spent.cpuSeconds.toFixed(1)} CPU-s, ${spent.money.toFixed(4)} ${e(v.currency)} spent of ${e(limitsText(budget!.limits as Record<string, number>, v.currency))}.</p>`
    : '';
  return `<div class="card" id="value-card" style="margin-top:18px"><h2>Cost and benefit</h2>${budgetLine}<div class="grid2"><div>${lineChart([cost, cpu], { title: 'What each run spent', empty: 'no run has finished yet' })}</div><div>${lineChart([saved], { title: 'Full-scan file opens each compaction saved', empty: 'no compaction has finished yet' })}</div></div>
<table class="list" id="value-days"><thead><tr><th>Day (UTC)</th><th class="num">Runs</th><th class="num">Read + written</th><th class="num">CPU-s</th><th class="num">Cost</th><th class="num">File opens saved</th></tr></thead><tbody>${days || '<tr><td colspan="6" class="muted">No runs yet.</td></tr>'}</tbody></table></div>`;
}

function limitsText(l: Record<string, number>, currency: string): string {
  const parts: string[] = [];
  if (l.bytes !== undefined) parts.push(formatBytes(l.bytes));
  if (l.cpuSeconds !== undefined) parts.push(`${l.cpuSeconds} CPU-s`);
  if (l.money !== undefined) parts.push(`${l.money} ${currency}`);
  return parts.join(', ');
}

const arrow = (a?: number, b?: number) => (a === undefined ? '—' : `${a} → ${b ?? '—'}`);

/** Files and delete files over time: each committed compaction gives a point before and one after. */
export function historySeries(runs: RunRecord[]): Series[] {
  const files: Series = { name: 'data files', color: '#3b6fd8', points: [] };
  const deletes: Series = { name: 'delete files', color: '#d64545', points: [] };
  const chronological = runs
    .filter((r) => r.job === 'compact' && !r.dryRun && r.filesBefore !== undefined)
    .sort((a, b) => a.startedAtMs - b.startedAtMs);
  for (const r of chronological) {
    files.points.push({ x: r.startedAtMs, y: r.filesBefore! });
    if (r.filesAfter !== undefined) files.points.push({ x: r.finishedAtMs, y: r.filesAfter });
    if (r.deleteFilesBefore !== undefined) {
      deletes.points.push({ x: r.startedAtMs, y: r.deleteFilesBefore });
      if (r.deleteFilesAfter !== undefined) deletes.points.push({ x: r.finishedAtMs, y: r.deleteFilesAfter });
    }
  }
  return [files, deletes];
}
