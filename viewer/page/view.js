/*
 * shmemu-view's page script (viewer/page/view.js): draws the run that bin/shmemu-view put
 * into the page (the JSON of <script id="shmemu-data">: header, events, edges, report).
 * Plain JavaScript, no library, no network: the page works from file://.
 *
 *   the diagram (svg#diagram)  a row per PE (or, expanded, per host thread, stream and
 *                              block of the PE); x is the event's position in the log (or
 *                              its time); events are dots, data and signals are arrows from
 *                              issuer to peer, waits, barriers and blocks are bars, hb edges
 *                              join a release to its acquire; races and hangs are red
 *   the occupancy (svg#occ)    per PE, the fraction of its SMs each kernel held, over the same x
 *   the panels                 the selected event (its source line), the report, the legend
 *
 * Only what lies in the visible window of x is drawn (render()): a log of 10 000 events and
 * more stays quick to draw and to step through. window.shmemuView is the page's interface
 * for tests (tests/browser/check-view.js): it must stay in step with them.
 */
'use strict';
(function () {
    const data = JSON.parse(document.getElementById('shmemu-data').textContent);
    const H = data.header, E = data.events, EDGES = data.edges || [];
    const N = E.length, NPES = H.npes;
    const LABEL_W = 190, AXIS_H = 22, ROW_H = 26, SUB_H = 20, OCC_H = 46, PAD = 30;
    const BASE_DX = 16;                 /* pixels per event at zoom 1, event order */
    const ARROW_OPS = {put: 1, put_nbi: 1, get: 1, get_nbi: 1, put_signal: 1, signal: 1, amo: 1};
    const $ = (id) => document.getElementById(id);
    const scroller = $('scroller'), inner = $('inner'), svg = $('diagram'), occ = $('occ');
    const view = {zoom: 1, mode: 'order', sel: N ? 0 : -1, expanded: new Set(), scroll: 0,
                  renders: 0, lastRenderMs: 0, firstRenderMs: -1};

    const esc = (s) => String(s).replace(/[&<>"']/g,
        (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'})[c]);
    const base = (f) => (f === undefined ? '' : String(f).replace(/^.*\//, ''));
    const num = (v) => Number(v);

    /* ---- lanes: each PE's threads (host, streams, blocks) ---------------------------- */
    /* a block's lane: its kernel and block number, shared by the kernel's launches (the
     * race checkers name a block's thread so too: "PE 1 kernel k block 3") */
    function blockKey(kernel, block) { return 'b:' + kernel + '/' + block; }
    function subOf(e) {
        if (e.op === 'block_start' || e.op === 'block_end' || e.where === 'block')
            return blockKey(e.kernel, e.block);
        if (e.where === 'stream')
            return 's:' + e.stream;
        return 'host';
    }
    const subs = [];                    /* subs[pe]: Map key -> {key, label, rank} */
    for (let p = 0; p < NPES; p++)
        subs.push(new Map([['host', {key: 'host', label: 'host', rank: [0, 0, 0]}]]));
    function addSub(pe, key, label, rank) {
        if (pe < 0 || pe >= NPES)
            return;
        if (!subs[pe].has(key))
            subs[pe].set(key, {key: key, label: label, rank: rank});
    }
    for (const e of E) {
        const key = subOf(e);
        if (key.startsWith('s:'))
            addSub(e.pe, key, 'stream ' + e.stream, [1, num(e.stream), 0]);
        else if (key.startsWith('b:'))
            addSub(e.pe, key, e.kernel + ' block ' + e.block, [2, num(e.launch), num(e.block)]);
        e.sub = key;
    }

    /* ---- x: the event's place in the log, or its time --------------------------------- */
    let xs = new Float64Array(N), byX = new Int32Array(N), width = 0;
    function layoutX() {
        /* a short log is spread over the window (up to 64 px an event) */
        const fit = (Math.max(scroller.clientWidth, 400) - LABEL_W - 2 * PAD) / Math.max(N, 1);
        const dx = Math.max(BASE_DX, Math.min(64, fit)) * view.zoom;
        view.dx = dx;
        if (view.mode === 'time' && N > 1) {
            let t0 = Infinity, t1 = -Infinity;
            for (const e of E) { t0 = Math.min(t0, num(e.t)); t1 = Math.max(t1, num(e.t)); }
            const span = Math.max(t1 - t0, 1), w = N * dx;
            for (let i = 0; i < N; i++)
                xs[i] = PAD + (num(E[i].t) - t0) / span * w;
            width = w + 2 * PAD;
        } else {
            for (let i = 0; i < N; i++)
                xs[i] = PAD + i * dx;
            width = N * dx + 2 * PAD;
        }
        const idx = Array.from({length: N}, (_, i) => i);
        idx.sort((a, b) => xs[a] - xs[b] || a - b);
        byX = Int32Array.from(idx);
        inner.style.width = (LABEL_W + width) + 'px';
        for (const o of occPes)
            o.steps = occSteps(o);
    }
    /* the first position in byX whose x >= x */
    function lowerX(x) {
        let lo = 0, hi = N;
        while (lo < hi) {
            const mid = (lo + hi) >> 1;
            if (xs[byX[mid]] < x) lo = mid + 1; else hi = mid;
        }
        return lo;
    }

    /* ---- rows ---------------------------------------------------------------------- */
    let rows = [], rowIndex = new Map();
    function layoutRows() {
        rows = [];
        rowIndex = new Map();
        let y = AXIS_H;
        for (let p = 0; p < NPES; p++) {
            if (!view.expanded.has(p)) {
                rowIndex.set(p + '|', rows.length);
                rows.push({pe: p, key: null, label: 'PE ' + p, y: y, h: ROW_H, top: true});
                y += ROW_H;
                continue;
            }
            const list = Array.from(subs[p].values()).sort((a, b) =>
                a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.rank[2] - b.rank[2]);
            list.forEach((s, k) => {
                rowIndex.set(p + '|' + s.key, rows.length);
                rows.push({pe: p, key: s.key, label: (k === 0 ? 'PE ' + p + ' ' : '   ') + s.label,
                           y: y, h: SUB_H, top: k === 0});
                y += SUB_H;
            });
        }
        return y;
    }
    function rowOf(pe, key) {
        if (!view.expanded.has(pe))
            return rows[rowIndex.get(pe + '|')];
        return rows[rowIndex.get(pe + '|' + key)] || rows[rowIndex.get(pe + '|host')];
    }
    const midY = (r) => r.y + r.h / 2;

    /* ---- intervals: waits, barriers, blocks ------------------------------------------- */
    const sigKey = (pe, s) => (s ? pe + ':' + s.obj + '+' + s.off : pe + ':?');
    const waits = [], barriers = [], blocks = [];
    (function pair() {
        const open = new Map();
        const push = (k, v) => { if (!open.has(k)) open.set(k, []); open.get(k).push(v); };
        const pop = (k) => { const a = open.get(k); return a && a.length ? a.pop() : undefined; };
        E.forEach((e, i) => {
            const lane = e.pe + '|' + e.sub;
            if (e.op === 'wait_start') {
                const w = {pe: e.pe, sub: e.sub, i1: i, i2: -1, sig: sigKey(e.pe, e.sig), hang: false};
                waits.push(w);
                push('w' + lane + '|' + w.sig, w);
            } else if (e.op === 'wait_done') {
                const w = pop('w' + lane + '|' + sigKey(e.pe, e.sig));
                if (w) w.i2 = i;
                else waits.push({pe: e.pe, sub: e.sub, i1: i, i2: i, sig: sigKey(e.pe, e.sig), hang: false});
            } else if (e.op === 'barrier_start') {
                const b = {pe: e.pe, sub: e.sub, i1: i, i2: -1, team: e.team};
                barriers.push(b);
                push('b' + lane + '|' + e.team, b);
            } else if (e.op === 'barrier_done') {
                const b = pop('b' + lane + '|' + e.team);
                if (b) b.i2 = i;
            } else if (e.op === 'block_start') {
                const b = {pe: e.pe, sub: e.sub, i1: i, i2: -1, sm: e.sm,
                           kernel: e.kernel + '#' + e.launch};
                blocks.push(b);
                push('k' + lane + '#' + e.launch, b);
            } else if (e.op === 'block_end') {
                const b = pop('k' + lane + '#' + e.launch);
                if (b) b.i2 = i;
            }
        });
    })();

    /* ---- edges -------------------------------------------------------------------- */
    const bySeq = new Map();
    E.forEach((e, i) => bySeq.set(num(e.seq), i));
    const hb = [];
    for (const ed of EDGES) {
        const a = bySeq.get(num(ed.from)), b = bySeq.get(num(ed.to));
        if (a !== undefined && b !== undefined)
            hb.push({a: a, b: b, kind: ed.kind});
    }
    const hbOf = new Map();             /* event index -> its edges */
    for (const h of hb)
        for (const i of [h.a, h.b]) {
            if (!hbOf.has(i)) hbOf.set(i, []);
            hbOf.get(i).push(h);
        }

    /* ---- the report: races (--report) and the log's hang ---------------------------- */
    const mark = new Map();             /* event index -> 'race' | 'hang' */
    const marks = [];                   /* {pe, sub, i, kind, title}: drawn just after event i */
    const joins = [];                   /* {a, b}: ends {pe, sub, i, at} joined by a red line */
    const races = (data.report && data.report.races) || [];
    function accessSub(a) {
        if (a.where === 'stream') {
            addSub(a.pe, 's:' + a.stream, 'stream ' + a.stream, [1, a.stream, 0]);
            return 's:' + a.stream;
        }
        if (a.where === 'block') {
            const key = blockKey(a.kernel, a.block);
            addSub(a.pe, key, a.kernel + ' block ' + a.block, [2, 1e9, a.block]);
            return key;
        }
        return 'host';
    }
    /* Where a race's access goes: its events (same thread, file and line), or a marker
     * just after the thread's call in that file nearest above the line, else just before
     * the nearest below it, else after the thread's last event. */
    function placeAccess(a, r) {
        if (a.pe < 0 || a.pe >= NPES)
            return null;
        const sub = accessSub(a), f = base(a.file);
        const hits = [];
        let above = -1, aboveLine = -Infinity, below = -1, belowLine = Infinity, last = -1;
        E.forEach((e, i) => {
            if (e.pe !== a.pe || e.sub !== sub)
                return;
            last = i;
            if (!f || base(e.file) !== f)
                return;
            if (e.line === a.line)
                hits.push(i);
            else if (e.line < a.line && e.line >= aboveLine) {
                above = i;
                aboveLine = e.line;
            } else if (e.line > a.line && e.line < belowLine) {
                below = i;
                belowLine = e.line;
            }
        });
        const title = 'race ' + (r + 1) + ': ' + a.kind + ' at ' + (f ? f + ':' + a.line : '?') +
                      ' by ' + (a.thread || 'PE ' + a.pe);
        if (hits.length) {
            for (const i of hits) mark.set(i, 'race');
            return {pe: a.pe, sub: sub, i: hits[0], off: 0, at: 'event'};
        }
        const i = above >= 0 ? above : below >= 0 ? below : last;
        if (i < 0)
            return null;
        const m = {pe: a.pe, sub: sub, i: i, off: above < 0 && below >= 0 ? -0.5 : 0.5, kind: 'race',
                   title: title, race: r, at: 'mark'};
        marks.push(m);
        return m;
    }
    races.forEach((r, k) => {
        const a = placeAccess(r.a, k), b = placeAccess(r.b, k);
        r.ends = [a, b];
        if (a && b) joins.push({a: a, b: b, race: k});
    });
    const hangs = E.map((e, i) => (e.op === 'hang' ? i : -1)).filter((i) => i >= 0);
    for (const h of hangs)
        for (const w of E[h].waits || []) {
            const key = sigKey(w.pe, w.sig);
            const found = waits.filter((x) => x.pe === w.pe && x.i2 < 0 && x.sig === key);
            for (const x of found) { x.hang = true; mark.set(x.i1, 'hang'); }
            if (!found.length && w.pe >= 0 && w.pe < NPES)
                marks.push({pe: w.pe, sub: 'host', i: h, off: 0.5, kind: 'hang',
                            title: 'waits for ever: ' + (w.sig ? w.sig.obj + '+' + w.sig.off : '?')});
        }

    /* ---- the occupancy: per PE, SMs held by each kernel over x ---------------------- */
    const kernels = [];                 /* kernel names in order of first launch */
    const occPes = [];                  /* {pe, sms, ev, steps: [{x, held: Map kernel#launch -> n}]} */
    (function occupancy() {
        let maxSm = -1;                 /* the SM count: the header's "sms", else the top slot seen */
        for (let p = 0; p < NPES; p++) {
            const ev = [];
            E.forEach((e, i) => {
                if (e.pe === p && (e.op === 'block_start' || e.op === 'block_end')) {
                    ev.push(i);
                    maxSm = Math.max(maxSm, num(e.sm));
                    if (!kernels.includes(e.kernel)) kernels.push(e.kernel);
                }
            });
            if (ev.length)
                occPes.push({pe: p, ev: ev});
        }
        for (const o of occPes)
            o.sms = H.sms || maxSm + 1;
    })();
    const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948',
                     '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
    /* a colour per kernel (its launches alike) */
    const kcolor = (k) => PALETTE[kernels.indexOf(k.replace(/#[^#]*$/, '')) % PALETTE.length];
    /* steps in x order (recomputed with x): each block event changes its kernel's count */
    function occSteps(o) {
        const ev = o.ev.slice().sort((a, b) => xs[a] - xs[b] || a - b);
        const held = new Map(), steps = [];
        for (const i of ev) {
            const e = E[i], k = e.kernel + '#' + e.launch;
            held.set(k, Math.max(0, (held.get(k) || 0) + (e.op === 'block_start' ? 1 : -1)));
            steps.push({x: xs[i], held: new Map(held)});
        }
        return steps;
    }

    /* ---- drawing ------------------------------------------------------------------- */
    function arrowPath(x1, y1, x2, y2) {
        if (Math.abs(y1 - y2) < 1)      /* to the same row: a small arc above it */
            return 'M' + x1 + ',' + y1 + ' C' + x1 + ',' + (y1 - 14) + ' ' + x2 + ',' + (y2 - 14) +
                   ' ' + x2 + ',' + (y2 - 4);
        return 'M' + x1 + ',' + y1 + ' L' + x2 + ',' + y2;
    }
    function curve(x1, y1, x2, y2) {
        const mx = (x1 + x2) / 2;
        return 'M' + x1 + ',' + y1 + ' C' + mx + ',' + y1 + ' ' + mx + ',' + y2 + ' ' + x2 + ',' + y2;
    }
    const DEFS = '<defs>' + [['put', '#1f5fbf'], ['get', '#1a9a8a'], ['sig', '#e07b00'],
                             ['amo', '#8a3fbf'], ['hb', '#2a9d2a']].map(([n, c]) =>
        '<marker id="m-' + n + '" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" ' +
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="' + c +
        '"/></marker>').join('') + '</defs>';
    const markerOf = (op) => (op.startsWith('get') ? 'get' : op.startsWith('put') && op !== 'put_signal'
                               ? 'put' : op === 'amo' ? 'amo' : 'sig');

    function render() {
        const t0 = performance.now();
        const vw = Math.max(scroller.clientWidth, 400);
        const sl = scroller.scrollLeft;
        view.scroll = sl;
        const lo = sl - 40, hi = sl + vw - LABEL_W + 40;     /* visible content x */
        const height = layoutRows() + 8;
        const out = [DEFS, '<rect class="labels-bg" x="0" y="0" width="' + vw + '" height="' +
                     AXIS_H + '"/>', '<g id="content" transform="translate(' + (LABEL_W - sl) + ',0)">'];
        for (const r of rows)
            out.push('<rect class="lane-bg' + (r.top ? ' top' : '') + '" x="' + lo + '" y="' + r.y +
                     '" width="' + (hi - lo) + '" height="' + r.h + '"/>');
        /* the axis: a tick every ~100 px, labelled with the event number or the time */
        const a = lowerX(lo), b = lowerX(hi);
        const step = Math.max(1, Math.round(100 / view.dx));
        for (let k = a; k < b; k++) {
            const i = byX[k];
            if (view.mode === 'order' ? i % step === 0 : k % step === 0)
                out.push('<line class="tick" x1="' + xs[i] + '" x2="' + xs[i] + '" y1="' + (AXIS_H - 4) +
                         '" y2="' + height + '"/><text class="axis" x="' + (xs[i] + 2) + '" y="' +
                         (AXIS_H - 8) + '">' + (view.mode === 'order' ? '#' + i : fmtT(E[i].t)) + '</text>');
        }
        const inView = (x1, x2) => x2 >= lo && x1 <= hi;
        const xEnd = width - PAD / 2;
        const bar = (cls, iv, title, extra) => {
            const x1 = xs[iv.i1], x2 = iv.i2 >= 0 ? xs[iv.i2] : xEnd;
            if (!inView(x1, x2)) return;
            const r = rowOf(iv.pe, iv.sub);
            out.push('<rect class="' + cls + '" x="' + x1 + '" y="' + (r.y + 3) + '" width="' +
                     Math.max(x2 - x1, 2) + '" height="' + (r.h - 6) + '"' + (extra || '') +
                     '><title>' + esc(title) + '</title></rect>');
        };
        for (const k of blocks)
            bar('blockbar', k, k.kernel + ' on SM ' + k.sm);
        for (const k of barriers)
            bar('barrier', k, 'barrier ' + k.team + (k.i2 < 0 ? ' (never left)' : ''));
        for (const w of waits)
            bar('wait' + (w.i2 < 0 ? ' open' : '') + (w.hang ? ' hang' : ''), w,
                'wait on ' + w.sig.replace(/^\d+:/, '') + (w.hang ? ': nobody will satisfy it (hang)'
                    : w.i2 < 0 ? ': not satisfied when the log ends' : ''),
                ' data-i="' + w.i1 + '"');
        /* hb edges: every one that crosses the window */
        for (const h of hb) {
            const x1 = xs[h.a], x2 = xs[h.b];
            if (!inView(Math.min(x1, x2), Math.max(x1, x2))) continue;
            const s = view.sel === h.a || view.sel === h.b ? ' sel' : '';
            out.push('<path class="hb' + s + '" data-from="' + E[h.a].seq + '" data-to="' + E[h.b].seq +
                     '" marker-end="url(#m-hb)" d="' + curve(x1, midY(rowOf(E[h.a].pe, E[h.a].sub)), x2,
                     midY(rowOf(E[h.b].pe, E[h.b].sub))) + '"><title>' + h.kind + ': seq ' + E[h.a].seq +
                     ' released, seq ' + E[h.b].seq + ' acquired</title></path>');
        }
        /* events and their arrows */
        const dx = Math.max(8, Math.min(view.dx * 0.8, 24));
        const dots = [];
        for (let k = a; k < b; k++) {
            const i = byX[k], e = E[i], r = rowOf(e.pe, e.sub), x = xs[i], y = midY(r);
            const s = i === view.sel ? ' sel' : '';
            if (ARROW_OPS[e.op] && e.peer !== undefined && e.peer >= 0 && e.peer < NPES) {
                const py = midY(rowOf(e.peer, 'host'));
                const back = e.op.startsWith('get');          /* a get's data comes back */
                const d = back ? arrowPath(x + dx, py, x, y) : arrowPath(x, y, x + dx, py);
                out.push('<path class="arrow op-' + e.op + s + '" data-seq="' + e.seq + '" marker-end="url(#m-' +
                         markerOf(e.op) + ')" d="' + d + '"/>');
            }
            const m = mark.get(i);
            dots.push('<circle class="ev op-' + esc(e.op) + s + (m ? ' ' + m : '') + '" data-i="' + i +
                      '" data-seq="' + e.seq + '" cx="' + x + '" cy="' + y + '" r="' +
                      (r.h === ROW_H ? 5 : 4) + '"><title>' + esc(e.op + ' (seq ' + e.seq + ')') +
                      '</title></circle>');
        }
        out.push(dots.join(''));
        /* report: markers and the joins of a race's two accesses */
        const endXY = (p) => {
            const r = rowOf(p.pe, p.sub);
            return [xs[p.i] + p.off * dx, midY(r)];
        };
        for (const j of joins) {
            const [x1, y1] = endXY(j.a), [x2, y2] = endXY(j.b);
            if (!inView(Math.min(x1, x2), Math.max(x1, x2))) continue;
            out.push('<path class="race-join" data-race="' + j.race + '" d="' +
                     curve(x1, y1, x2, y2) + '"/>');
        }
        for (const m of marks) {
            const r = rowOf(m.pe, m.sub), x = xs[m.i] + m.off * dx, y = midY(r);
            if (!inView(x, x)) continue;
            out.push('<path class="' + m.kind + '-mark"' + (m.race !== undefined ? ' data-race="' + m.race + '"' : '') +
                     ' d="M' + x + ',' + (y - 8) + ' l6,8 l-6,8 l-6,-8 z"><title>' + esc(m.title) +
                     '</title></path>');
        }
        if (view.sel >= 0)
            out.push('<line class="cursor" x1="' + xs[view.sel] + '" x2="' + xs[view.sel] + '" y1="' +
                     AXIS_H + '" y2="' + height + '"/>');
        out.push('</g><rect class="labels-bg" x="0" y="0" width="' + LABEL_W + '" height="' + height + '"/>');
        for (const r of rows) {
            const full = (r.top ? (view.expanded.has(r.pe) ? '\u25be ' : '\u25b8 ') : '  ') + r.label;
            /* 28 characters fit LABEL_W: a long kernel name is cut, its " block N" kept */
            const tail = (full.match(/ block \d+$/) || [''])[0];
            const shown = full.length > 28 ? full.slice(0, 27 - tail.length) + '\u2026' + tail : full;
            out.push('<text class="label' + (r.key && r.key !== 'host' ? ' sub' : '') + '" data-pe="' + r.pe +
                     '" x="6" y="' + (midY(r) + 4) + '" xml:space="preserve">' + esc(shown) +
                     (shown !== full ? '<title>' + esc(full) + '</title>' : '') + '</text>');
        }
        svg.setAttribute('width', vw);
        svg.setAttribute('height', height);
        svg.innerHTML = out.join('');
        renderOcc(vw, sl, lo, hi);
        view.renders++;
        view.lastRenderMs = performance.now() - t0;
        if (view.firstRenderMs < 0)
            view.firstRenderMs = performance.now();
    }

    function renderOcc(vw, sl, lo, hi) {
        if (!occPes.length) {
            occ.setAttribute('height', 0);
            occ.innerHTML = '';
            return;
        }
        /* the legend: a coloured key per kernel, in rows as wide as the window */
        const legend = [];
        let lx = LABEL_W + 10, ly = 13;
        for (const k of kernels) {
            const w = 30 + 7 * Math.min(k.length, 40);
            if (lx + w > vw && lx > LABEL_W + 10) { lx = LABEL_W + 10; ly += 16; }
            legend.push('<rect x="' + lx + '" y="' + (ly - 9) + '" width="10" height="10" fill="' + kcolor(k) +
                        '"/><text class="occ-kernel-label" x="' + (lx + 14) + '" y="' + ly + '">' +
                        esc(k.length > 40 ? k.slice(0, 39) + '\u2026' : k) + '</text>');
            lx += w;
        }
        const out = ['<g transform="translate(' + (LABEL_W - sl) + ',0)">'];
        let y = ly + 6;
        const labels = [];
        for (const o of occPes) {
            const steps = o.steps, h = OCC_H;
            out.push('<rect class="occ-frame" x="' + lo + '" y="' + y + '" width="' + (hi - lo) +
                     '" height="' + h + '"/>');
            let s0 = 0;                 /* the first step that may reach the window */
            for (let s1 = steps.length; s0 < s1;) {
                const mid = (s0 + s1) >> 1;
                if (mid + 1 < steps.length && steps[mid + 1].x < lo) s0 = mid + 1; else s1 = mid;
            }
            for (let s = s0; s < steps.length && steps[s].x <= hi; s++) {
                const x1 = steps[s].x, x2 = s + 1 < steps.length ? steps[s + 1].x : x1;
                if (x2 <= x1) continue;
                let yy = y + h;
                for (const [k, n] of steps[s].held) {
                    if (!n) continue;
                    const hh = h * Math.min(n / o.sms, 1);
                    yy -= hh;
                    out.push('<rect class="occ-bar" data-pe="' + o.pe + '" data-kernel="' + esc(k) +
                             '" fill="' + kcolor(k) + '" x="' + x1 + '" y="' + yy + '" width="' + (x2 - x1) +
                             '" height="' + hh + '"><title>' + esc(k) + ': ' + n + ' of ' + o.sms +
                             ' SMs</title></rect>');
                }
            }
            labels.push('<text class="occ-title" x="6" y="' + (y + h / 2 + 4) + '">PE ' + o.pe + ' (' +
                        o.sms + ' SMs)</text>');
            y += h + 6;
        }
        out.push('</g><rect class="labels-bg" x="0" y="0" width="' + LABEL_W + '" height="' + y + '"/>');
        out.push('<rect class="labels-bg" x="' + LABEL_W + '" y="0" width="' + (vw - LABEL_W) + '" height="' +
                 (ly + 4) + '"/><text class="occ-title" x="6" y="13">SMs held by each kernel</text>');
        out.push(legend.join(''), labels.join(''));
        occ.setAttribute('width', vw);
        occ.setAttribute('height', y);
        occ.innerHTML = out.join('');
    }

    function fmtT(t) {
        if (H.order !== 'time') return 'step ' + t;
        const v = num(t);
        return v >= 1e6 ? (v / 1e6).toFixed(2) + 'ms' : v >= 1e3 ? (v / 1e3).toFixed(1) + 'us' : v + 'ns';
    }

    /* ---- the selected event -------------------------------------------------------- */
    const launchText = (e) => (num(e.launch) < 0 ? '?' : e.launch);
    function whereText(e) {
        if (e.where === 'stream') return 'PE ' + e.pe + ' stream ' + e.stream;
        if (e.where === 'block')
            return 'PE ' + e.pe + ' kernel ' + e.kernel + ' (launch ' + launchText(e) + ') block ' + e.block +
                   (e.thread >= 0 ? ' thread ' + e.thread : '');
        return 'PE ' + e.pe + ' host';
    }
    const memText = (m) => (m ? m.obj + ' + ' + m.off + (m.alloc ? ' (' + m.alloc + ')' : '') : '');
    function details() {
        const body = $('detail-body');
        if (view.sel < 0) {
            body.textContent = 'The log holds no event.';
            return;
        }
        const e = E[view.sel];
        const rows2 = [['event', (view.sel + 1) + ' of ' + N + ' (seq ' + e.seq + ', t ' + fmtT(e.t) + ')'],
                       ['op', e.op], ['thread', whereText(e)]];
        rows2.push(['source', e.file !== undefined ? e.file + ':' + e.line + (e.func ? ' in ' + e.func + '()' : '')
                                                    : '(unknown)']);
        const skip = {seq: 1, t: 1, pe: 1, op: 1, where: 1, stream: 1, kernel: 1, launch: 1, block: 1,
                      thread: 1, file: 1, line: 1, func: 1, i: 1, sub: 1};
        if (e.op === 'launch' || e.op === 'block_start' || e.op === 'block_end')
            rows2.push(['kernel', e.kernel + ' (launch ' + launchText(e) + ')']);
        if (e.op === 'launch')
            rows2.push(['stream', e.stream]);
        for (const k of Object.keys(e)) {
            if (skip[k]) continue;
            const v = e[k];
            if (k === 'waits')
                rows2.push([k, v.map((w) => 'PE ' + w.pe + ' ' + (w.where || '') + ' on ' + memText(w.sig) +
                    (w.cmp ? ' ' + w.cmp + ' ' + w.value + ' (is ' + w.seen + ')' : '') +
                    (w.file ? ' at ' + w.file + ':' + w.line : '')).join('\n')]);
            else if (v && typeof v === 'object' && !Array.isArray(v))
                rows2.push([k, memText(v)]);
            else
                rows2.push([k, Array.isArray(v) ? '[' + v.join(', ') + ']' : v]);
        }
        for (const h of hbOf.get(view.sel) || []) {
            const o = h.a === view.sel ? E[h.b] : E[h.a];
            rows2.push([h.a === view.sel ? 'released to' : 'acquired from', o.op + ' seq ' + o.seq + ' (' +
                        whereText(o) + ') [' + h.kind + ']']);
        }
        if (mark.get(view.sel) === 'race')
            rows2.push(['report', 'an access of a race (see Report)']);
        if (mark.get(view.sel) === 'hang')
            rows2.push(['report', 'this wait is never satisfied (the run hung)']);
        body.innerHTML = '<table>' + rows2.map(([k, v]) => '<tr' + (k === 'source' ? ' class="src"' : '') +
            '><td>' + esc(k) + '</td><td>' + esc(v).replace(/\n/g, '<br>') + '</td></tr>').join('') + '</table>';
        $('pos').textContent = 'event ' + (view.sel + 1) + ' / ' + N + '  seq ' + e.seq + '  ' + e.op + '  ' +
                               whereText(e);
    }

    /* Moves the selection within the drawn window: its dot, arrow, edges and the cursor. */
    function reselect() {
        for (const el of Array.from(svg.querySelectorAll('.sel')))
            el.classList.remove('sel');
        const e = E[view.sel], q = '[data-seq="' + e.seq + '"]';
        for (const el of svg.querySelectorAll('circle.ev' + q + ',path.arrow' + q + ',path.hb[data-from="' +
                                              e.seq + '"],path.hb[data-to="' + e.seq + '"]'))
            el.classList.add('sel');
        const cur = svg.querySelector('line.cursor');
        if (cur) {
            cur.setAttribute('x1', xs[view.sel]);
            cur.setAttribute('x2', xs[view.sel]);
        }
        return cur !== null && svg.querySelector('circle.ev.sel') !== null;
    }
    function select(i, center) {
        if (!N) return;
        view.sel = Math.max(0, Math.min(N - 1, i));
        const vw = scroller.clientWidth - LABEL_W, x = xs[view.sel];
        const away = center || x < scroller.scrollLeft + 20 || x > scroller.scrollLeft + vw - 20;
        if (away)
            scroller.scrollLeft = Math.max(0, x - vw / 2);
        if (away || !reselect())
            render();
        details();
    }
    const step = (d) => select(view.sel + d);

    /* ---- the header and the report panel ------------------------------------------- */
    function header() {
        const args = (H.args || []).map((a) => ' ' + a).join('');
        $('run').textContent = H.program + args + '  |  ' + NPES + ' PEs, ' + N + ' events, ' + hb.length +
            ' hb edges  |  ' + (H.order === 'sched' ? 'scheduler ' + H.sched + ' seed ' + H.seed +
            ' (x: decision order)' : 'order: time') + '  |  ' + data.log;
        const warn = [];
        if (H.dropped > 0)
            warn.push('The recorder dropped ' + H.dropped + ' events (its buffer was full): the diagram misses them.');
        if (data.ignored > 0)
            warn.push(data.ignored + ' event(s) of ops this viewer does not know left out.');
        $('warn').textContent = warn.join(' ');
        const body = $('report-body'), parts = [];
        for (const h of hangs)
            parts.push('<div class="hang-item" data-i="' + h + '"><b>The run hung</b> (event ' + (h + 1) +
                       '): the red waits are never satisfied.<pre>' + esc(E[h].text) + '</pre></div>');
        for (const i of E.keys())
            if (E[i].op === 'error')
                parts.push('<div class="hang-item" data-i="' + i + '"><b>Runtime error</b><pre>' +
                           esc(E[i].text) + '</pre></div>');
        if (data.report)
            parts.push('<div>' + races.length + ' race(s) from ' + esc(data.report.file) + ':</div>');
        races.forEach((r, k) => parts.push('<div class="race-item" data-race="' + k + '">' + (k + 1) + '. [' +
            esc(r.tool) + '] ' + esc(r.text[0]) + '<br>&nbsp;&nbsp;' + esc(r.text[1]) +
            (r.ends.some((x) => x && x.at === 'mark') ? '<br><i>(no recorded call at that line: the ' +
             'marker sits beside the thread\'s nearest call in that file)</i>' : '') + '</div>'));
        if (!parts.length)
            parts.push('No report: the run ended normally and no --report was given.');
        body.innerHTML = parts.join('');
    }

    /* ---- input ---------------------------------------------------------------------- */
    /* the zoom at which the whole log fits the window's width */
    function fitZoom() {
        const avail = Math.max(scroller.clientWidth, 400) - LABEL_W - 2 * PAD;
        const base = Math.max(BASE_DX, Math.min(64, avail / Math.max(N, 1)));
        return avail / (Math.max(N, 1) * base);
    }
    function setZoom(z) {
        const keep = view.sel >= 0 ? xs[view.sel] - scroller.scrollLeft : 0;
        view.zoom = Math.max(Math.min(0.05, fitZoom()), Math.min(8, z));
        layoutX();
        if (view.sel >= 0)
            scroller.scrollLeft = Math.max(0, xs[view.sel] - keep);
        render();
    }
    function toggle(pe) {
        if (view.expanded.has(pe)) view.expanded.delete(pe); else view.expanded.add(pe);
        render();
    }
    $('first').onclick = () => select(0);
    $('prev').onclick = () => step(-1);
    $('next').onclick = () => step(1);
    $('last').onclick = () => select(N - 1);
    $('zoomin').onclick = () => setZoom(view.zoom * 1.5);
    $('zoomout').onclick = () => setZoom(view.zoom / 1.5);
    $('fit').onclick = () => setZoom(fitZoom());
    $('xmode').onchange = (ev) => { view.mode = ev.target.value; layoutX(); select(view.sel, true); };
    $('expand').onclick = () => { for (let p = 0; p < NPES; p++) view.expanded.add(p); render(); };
    $('collapse').onclick = () => { view.expanded.clear(); render(); };
    svg.addEventListener('click', (ev) => {
        const t = ev.target;
        if (t.dataset && t.dataset.pe !== undefined && t.classList.contains('label'))
            toggle(Number(t.dataset.pe));
        else if (t.dataset && t.dataset.i !== undefined)
            select(Number(t.dataset.i));
    });
    $('report-body').addEventListener('click', (ev) => {
        const item = ev.target.closest('[data-race],[data-i]');
        if (!item) return;
        if (item.dataset.i !== undefined) { select(Number(item.dataset.i), true); return; }
        const r = races[Number(item.dataset.race)];
        const end = r && (r.ends[0] || r.ends[1]);
        if (end) {
            if (end.sub !== 'host') view.expanded.add(end.pe);
            select(end.i, true);
        }
    });
    document.addEventListener('keydown', (ev) => {
        if (ev.target.tagName === 'SELECT' || ev.altKey || ev.ctrlKey || ev.metaKey) return;
        const k = ev.key;
        if (k === 'ArrowRight') step(1);
        else if (k === 'ArrowLeft') step(-1);
        else if (k === 'Home') select(0);
        else if (k === 'End') select(N - 1);
        else if (k === '+' || k === '=') setZoom(view.zoom * 1.5);
        else if (k === '-') setZoom(view.zoom / 1.5);
        else if (k === 'f') setZoom(fitZoom());
        else return;
        ev.preventDefault();
    });
    let pending = false;
    scroller.addEventListener('scroll', () => {
        if (pending || scroller.scrollLeft === view.scroll) return;
        pending = true;
        requestAnimationFrame(() => { pending = false; render(); });
    });
    window.addEventListener('resize', () => { layoutX(); render(); });

    layoutX();
    header();
    render();
    details();
    window.shmemuView = {
        view: view, events: E, races: races, step: step, select: select, toggle: toggle,
        fit: () => setZoom(fitZoom()),
        selected: () => view.sel, firstRenderMs: () => view.firstRenderMs,
    };
})();
