// ShareGPU allocation page: reads api/allocations (compact form, see AllocationPage.java) and
// ../debug/pending, polls both with If-None-Match, draws only the node rows in view.
'use strict';
(() => {
  const POLL_MS = 2000, PENDING_MS = 4000, TILE_H = 104, HEAD_H = 24, PAD = 9, MIN_TILE_W = 150;
  const UNHEALTHY = 1, EXCLUSIVE = 2, CORDONED = 4;
  const $ = (id) => document.getElementById(id);
  const root = document.documentElement;
  const els = { status: $('status'), summary: $('summary'), ns: $('f-ns'), model: $('f-model'),
    node: $('f-node'), used: $('f-used'), pending: $('pending'), pendingCount: $('pending-count'),
    nodesCount: $('nodes-count'), viewport: $('viewport'), spacer: $('spacer'), rows: $('rows') };
  let data = null, pending = null, etag = null, pendingEtag = null, firstRender = true;
  let shown = [], offsets = new Float64Array(1), cols = 8, drawn = '';

  function h(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  const share = (milli) => (milli / 1000).toFixed(milli % 10 ? 3 : 2).replace(/0$/, '');
  const gib = (mib) => (mib / 1024).toFixed(1) + ' GiB';
  function hue(s) {
    let x = 2166136261;
    for (let i = 0; i < s.length; i++) x = Math.imul(x ^ s.charCodeAt(i), 16777619);
    return (x >>> 0) % 360;
  }
  // segments keep 3:1 against the empty bar in either scheme
  const light = matchMedia('(prefers-color-scheme: dark)').matches ? 62 : 30;
  const colour = (key) => 'hsl(' + hue(key) + ' 70% ' + light + '%)';
  const podKey = (p) => data.namespaces[data.pods[p][0]] + '/' + data.pods[p][1];
  const podNs = (p) => data.namespaces[data.pods[p][0]];

  // ------------------------------------------------------------------------------------ data
  async function poll() {
    const t0 = performance.now();
    try {
      const r = await fetch('api/allocations', { cache: 'no-store',
        headers: etag ? { 'If-None-Match': etag } : {} });
      if (r.status === 304) { stamp(); return; }
      if (!r.ok) throw new Error('HTTP ' + r.status);
      const text = await r.text();
      const t1 = performance.now();
      const d = JSON.parse(text);
      etag = r.headers.get('ETag');
      data = index(d);
      fillSelect(els.ns, data.namespaces, 'All namespaces');
      fillSelect(els.model, data.models, 'All models');
      renderSummary();
      refilter();
      renderPending();
      if (firstRender) {
        void els.rows.offsetHeight; // include style and layout in the measure
        const ms = performance.now() - t1;
        root.dataset.firstRenderMs = ms.toFixed(1);
        root.dataset.fetchMs = (t1 - t0).toFixed(1);
        root.dataset.jsonBytes = String(text.length);
        firstRender = false;
      }
      root.dataset.version = d.version;
      stamp();
    } catch (e) {
      els.status.textContent = 'Cannot read the allocations (' + e.message + '); retrying.';
    }
  }

  async function pollPending() {
    try {
      const r = await fetch('../debug/pending', { cache: 'no-store',
        headers: pendingEtag ? { 'If-None-Match': pendingEtag } : {} });
      if (r.status === 304 || !r.ok) return;
      pendingEtag = r.headers.get('ETag');
      pending = await r.json();
      renderPending();
    } catch (e) { /* the next poll tries again */ }
  }

  function stamp() {
    els.status.textContent = 'Live, updated ' + new Date().toLocaleTimeString();
  }

  // per node: the models and namespaces on it, whether any pod holds a GPU
  function index(d) {
    d.nodeInfo = d.nodes.map(([name, gpus]) => {
      const models = new Set(), ns = new Set();
      for (const g of gpus) {
        models.add(g[2]);
        const gr = g[8];
        for (let i = 0; i < gr.length; i += 3) ns.add(d.pods[gr[i]][0]);
      }
      return { name, gpus, models, ns, lower: name.toLowerCase(),
        first: gpus.length ? d.models[gpus[0][2]] : '' };
    });
    return d;
  }

  function fillSelect(sel, values, all) {
    const key = values.join('\n');
    if (sel.dataset.key === key) return;
    const keep = sel.value;
    sel.replaceChildren(new Option(all, ''));
    [...values].sort().forEach((v) => sel.add(new Option(v, v)));
    sel.value = values.includes(keep) ? keep : '';
    sel.dataset.key = key;
  }

  // --------------------------------------------------------------------------------- summary
  function renderSummary() {
    const s = data.summary;
    const items = [
      ['Nodes', s.nodes], ['GPUs', s.gpus], ['Pods', s.pods],
      ['Unallocated GPU compute', s.unallocatedPct + ' %'],
      ['Idle GPUs', s.idleGpus], ['Partly used GPUs', s.partlyUsedGpus],
      ['Free compute on partly used GPUs', s.freeOnPartlyUsedPct + ' %'],
      ['Fragmentation (FGD)', s.fragmentationPct == null ? 'n/a' : s.fragmentationPct + ' %'],
      ['Cordoned GPUs', s.cordonedGpus], ['Unhealthy GPUs', s.unhealthyGpus]];
    els.summary.replaceChildren(...items.map(([k, v]) => {
      const div = h('div');
      div.append(h('dt', null, k), h('dd', null, String(v)));
      return div;
    }));
  }

  // ---------------------------------------------------------------------------------- filter
  function refilter() {
    if (!data) return;
    const ns = els.ns.value, model = els.model.value, q = els.node.value.trim().toLowerCase();
    const nsIdx = ns ? data.namespaces.indexOf(ns) : -1, modelIdx = model ? data.models.indexOf(model) : -1;
    const used = els.used.checked;
    shown = data.nodeInfo.filter((n) => (nsIdx < 0 || n.ns.has(nsIdx))
      && (modelIdx < 0 || n.models.has(modelIdx)) && (!q || n.lower.includes(q)) && (!used || n.ns.size));
    shown.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : a.name < b.name ? -1 : 1));
    els.nodesCount.textContent = '(' + shown.length + ' of ' + data.nodeInfo.length + ')';
    layout();
    renderPending();
  }

  function layout() {
    const width = els.viewport.clientWidth - 2 * PAD;
    cols = Math.max(1, Math.min(8, Math.floor((width + 6) / (MIN_TILE_W + 6))));
    offsets = new Float64Array(shown.length + 1);
    for (let i = 0; i < shown.length; i++) {
      const lines = Math.max(1, Math.ceil(shown[i].gpus.length / cols));
      offsets[i + 1] = offsets[i] + HEAD_H + PAD + lines * TILE_H;
    }
    els.spacer.style.height = offsets[shown.length] + 'px';
    els.rows.style.setProperty('--cols', cols);
    drawn = '';
    draw();
  }

  function rowAt(y) { // the last row whose top is <= y
    let lo = 0, hi = shown.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (offsets[mid] <= y) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function draw() {
    const top = els.viewport.scrollTop, bottom = top + els.viewport.clientHeight;
    const first = Math.max(0, rowAt(top) - 2), last = Math.min(shown.length, rowAt(bottom) + 3);
    const key = first + ':' + last + ':' + shown.length;
    if (key === drawn) return;
    drawn = key;
    const nsIdx = els.ns.value ? data.namespaces.indexOf(els.ns.value) : -1;
    const frag = document.createDocumentFragment();
    for (let i = first; i < last; i++) frag.append(row(shown[i], nsIdx, i));
    els.rows.style.transform = 'translateY(' + (shown.length ? offsets[first] : 0) + 'px)';
    const focused = els.rows.contains(document.activeElement) ? document.activeElement.dataset.uuid : null;
    els.rows.replaceChildren(frag);
    if (focused) { // keep a keyboard user's place across live updates
      const again = els.rows.querySelector('.tile[data-uuid="' + CSS.escape(focused) + '"]');
      (again || els.viewport).focus({ preventScroll: true });
    }
  }

  // ---------------------------------------------------------------------------------- tiles
  function row(n, nsIdx, i) {
    const r = h('div', 'row');
    r.setAttribute('role', 'listitem');
    r.style.height = (offsets[i + 1] - offsets[i]) + 'px';
    r.dataset.node = n.name;
    const title = h('h3', null, n.name + ' ');
    title.append(h('small', null, n.gpus.length + ' GPU' + (n.gpus.length === 1 ? '' : 's') + ' · ' + n.first));
    const ul = h('ul', 'gpus');
    ul.setAttribute('aria-label', 'GPUs of ' + n.name);
    for (const g of n.gpus) ul.append(tile(g, nsIdx));
    r.append(title, ul);
    return r;
  }

  function tile(g, nsIdx) {
    const [index, uuid, model, compute, memory, used, usedMem, flags, gr, extra] = g;
    const li = h('li', 'tile' + (flags & CORDONED ? ' cordoned' : '') + (flags & UNHEALTHY ? ' unhealthy' : ''));
    li.tabIndex = 0;
    li.dataset.uuid = uuid;
    const name = data.models[model];
    const head = h('div', 'th');
    head.append(h('b', null, 'GPU ' + index + (extra && extra.mig ? ' ' + extra.mig : '')),
      h('span', null, Math.round(100 * Math.max(0, compute - used) / compute) + '% free'));
    const cbar = h('div', 'bar'), mbar = h('div', 'bar mem');
    cbar.setAttribute('aria-hidden', 'true');
    mbar.setAttribute('aria-hidden', 'true');
    const list = h('ul', 'plist');
    const spoken = [];
    let otherMilli = 0, otherMem = 0, listed = 0, mineCount = 0;
    for (let i = 0; i < gr.length; i += 3) if (nsIdx < 0 || data.pods[gr[i]][0] === nsIdx) mineCount++;
    const lines = flags & (CORDONED | UNHEALTHY) ? 2 : 3;
    const room = mineCount > lines || (mineCount === lines && mineCount * 3 < gr.length) ? lines - 1 : lines;
    for (let i = 0; i < gr.length; i += 3) {
      const p = gr[i], milli = gr[i + 1], mem = gr[i + 2];
      const mine = nsIdx < 0 || data.pods[p][0] === nsIdx;
      if (!mine) { otherMilli += milli; otherMem += mem; continue; }
      const key = podKey(p), c = colour(key), state = data.states[data.pods[p][2]];
      const sh = flags & EXCLUSIVE && milli >= compute ? 'whole' : share(milli);
      bars(cbar, mbar, milli / compute, memory ? mem / memory : 0, c, key + ' ' + sh);
      spoken.push(key + ' share ' + sh + ', ' + gib(mem) + (state === 'BOUND' ? '' : ', ' + state.toLowerCase()));
      if (listed < room) {
        const item = h('li');
        const sw = h('span', 'sw');
        sw.style.background = c;
        const n = h('span', 'n', data.pods[p][1] + ' ');
        n.append(h('small', null, podNs(p)));
        item.append(sw, n, h('span', 's', sh));
        list.append(item);
        listed++;
      }
    }
    const more = spoken.length - listed;
    if (otherMilli) {
      bars(cbar, mbar, otherMilli / compute, memory ? otherMem / memory : 0, null, 'other namespaces');
      spoken.push('other namespaces share ' + share(otherMilli));
    }
    if (more > 0) list.append(h('li', null, '+' + more + ' more'));
    else if (otherMilli) list.append(h('li', null, 'other namespaces ' + share(otherMilli)));
    li.append(head, cbar, mbar);
    let note = '';
    if (flags & CORDONED) note = 'Cordoned' + (extra && extra.cordonReason ? ': ' + extra.cordonReason : '');
    if (flags & UNHEALTHY) note = 'Unhealthy' + (note ? '; ' + note : '');
    if (note) li.append(h('div', 'note', note));
    li.append(list);
    const label = 'GPU ' + index + ' ' + uuid + ', ' + name + (extra && extra.mig ? ' MIG ' + extra.mig : '')
      + '. Compute ' + used + ' of ' + compute + ' milli used, memory ' + gib(usedMem) + ' of ' + gib(memory)
      + ' used. ' + (note ? note + '. ' : '') + (spoken.length ? 'Pods: ' + spoken.join('; ') + '.' : 'No pods.');
    li.setAttribute('aria-label', label);
    li.title = label;
    return li;
  }

  function bars(cbar, mbar, c, m, colourValue, label) {
    const cs = h('div', 'seg' + (colourValue ? '' : ' other')), ms = h('div', 'seg' + (colourValue ? '' : ' other'));
    cs.style.width = Math.min(100, c * 100) + '%';
    ms.style.width = Math.min(100, m * 100) + '%';
    if (colourValue) { cs.style.background = colourValue; ms.style.background = colourValue; }
    cs.title = label;
    cbar.append(cs);
    mbar.append(ms);
  }

  // -------------------------------------------------------------------------------- pending
  function renderPending() {
    if (!pending) return;
    const ns = els.ns.value;
    const pods = pending.pods.filter((p) => !ns || p.namespace === ns);
    els.pendingCount.textContent = '(' + (ns ? pods.length : pending.total) + ')';
    if (!pods.length) { els.pending.replaceChildren(h('p', null, 'None.')); return; }
    const table = h('table');
    const cap = h('caption', 'vh', 'Pods waiting for GPUs and why each node turned them away');
    const head = h('tr');
    ['Pod', 'Namespace', 'Request', 'Why not scheduled'].forEach((t) => {
      const th = h('th', null, t);
      th.scope = 'col';
      head.append(th);
    });
    const thead = h('thead'), body = h('tbody');
    thead.append(head);
    for (const p of pods) {
      const tr = h('tr');
      tr.dataset.pod = p.pod;
      const th = h('th', null, p.name);
      th.scope = 'row';
      const req = p.containers.map((c) => c.container + ': ' + (c.computeMilli >= 1000
        ? c.computeMilli / 1000 + ' GPU' + (c.computeMilli > 1000 ? 's' : '') : share(c.computeMilli))
        + (c.memoryMib ? ', ' + gib(c.memoryMib) : '')).join('; ')
        + (p.models.length ? ' (models ' + p.models.join(', ') + ')' : '');
      const why = h('ul', 'reasons');
      if (p.fitsNow) why.append(h('li', null, 'Fits on ' + p.fitsNow + ' node(s) now; a retry is on its way.'));
      for (const r of p.reasons) {
        const li = h('li', null, r.reason + ' ');
        li.append(h('span', 'nodes', '(' + r.count + ' node' + (r.count === 1 ? '' : 's') + ': '
          + r.nodes.join(', ') + (r.count > r.nodes.length ? ', …' : '') + ')'));
        why.append(li);
      }
      const td = h('td');
      td.append(why);
      tr.append(th, h('td', null, p.namespace), h('td', null, req), td);
      body.append(tr);
    }
    table.append(cap, thead, body);
    const out = [table];
    if (pending.total > pending.pods.length) out.push(h('p', null, 'Showing ' + pending.pods.length + ' of ' + pending.total + '.'));
    els.pending.replaceChildren(...out);
  }

  // ------------------------------------------------------------------------------- wiring
  let frame = 0;
  els.viewport.addEventListener('scroll', () => {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(); });
  });
  let resize = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resize);
    resize = setTimeout(() => data && layout(), 100);
  });
  [els.ns, els.model, els.used].forEach((e) => e.addEventListener('change', refilter));
  els.node.addEventListener('input', refilter);
  document.getElementById('filters').addEventListener('submit', (e) => e.preventDefault());

  async function loop(fn, ms) {
    if (!document.hidden) await fn();
    setTimeout(() => loop(fn, ms), ms);
  }
  document.addEventListener('visibilitychange', () => { if (!document.hidden) { poll(); pollPending(); } });
  pollPending().then(() => loop(poll, POLL_MS));
  setTimeout(() => loop(pollPending, PENDING_MS), PENDING_MS);
})();
