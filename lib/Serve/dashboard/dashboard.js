// Renders GET /v1/stats into the dashboard: summary cards, per-target table,
// top passes and the speedup timeline; the numbers never depend on Chart.js.
(function () {
  'use strict';

  var REFRESH_MS = 15000;
  var PALETTE = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];

  var token = new URLSearchParams(window.location.search).get('token');
  var chartsAvailable = typeof window.Chart === 'function';
  var charts = { timeline: null, passes: null };

  document.body.setAttribute('data-charts', chartsAvailable ? 'ready' : 'unavailable');
  if (!chartsAvailable) {
    document.body.classList.add('no-charts');
    document.getElementById('timeline-details').open = true;
  }

  /// 0.667 -> "66.7%"; one decimal, and never "-0.0%" for a tiny negative.
  function percent(fraction) {
    var text = (fraction * 100).toFixed(1);
    if (text === '-0.0')
      text = '0.0';
    return text + '%';
  }

  function pad(n) { return (n < 10 ? '0' : '') + n; }

  /// Local wall-clock time of a unix timestamp, as "YYYY-MM-DD HH:MM:SS".
  function formatTime(unixSeconds, withDate) {
    var d = new Date(unixSeconds * 1000);
    var time = pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
    if (!withDate)
      return time;
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' + time;
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined)
      node.textContent = text;
    return node;
  }

  function setNumber(id, value, text) {
    var node = document.getElementById(id);
    node.textContent = text;
    node.setAttribute('data-value', String(value));
  }

  function colorFor(index) { return PALETTE[index % PALETTE.length]; }

  function renderSummary(stats) {
    setNumber('win-rate', stats.win_rate, percent(stats.win_rate));
    setNumber('average-improvement', stats.average_improvement, percent(stats.average_improvement));
    setNumber('measured', stats.measured, String(stats.measured));
    setNumber('requests', stats.requests, String(stats.requests));
    var improvement = document.getElementById('average-improvement');
    improvement.classList.toggle('good', stats.measured > 0 && stats.average_improvement > 0);
    improvement.classList.toggle('bad', stats.measured > 0 && stats.average_improvement < 0);
  }

  function renderPerTarget(perTarget) {
    var body = document.querySelector('#per-target tbody');
    body.replaceChildren();
    perTarget.forEach(function (row) {
      var tr = el('tr', { 'data-target': row.target });
      tr.appendChild(el('td', { 'class': 'target' }, row.target));
      tr.appendChild(el('td', { 'class': 'measured num', 'data-value': row.measured }, String(row.measured)));
      tr.appendChild(el('td', { 'class': 'win-rate num', 'data-value': row.win_rate }, percent(row.win_rate)));
      tr.appendChild(el('td', { 'class': 'average-improvement num', 'data-value': row.average_improvement },
                        percent(row.average_improvement)));
      var fallback = el('td', { 'class': 'fallback', 'data-value': row.fallback ? 'true' : 'false' },
                        row.fallback ? 'yes (the family\'s expert, else default)' : 'no');
      if (row.fallback)
        fallback.classList.add('bad');
      tr.appendChild(fallback);
      body.appendChild(tr);
    });
    document.getElementById('per-target-empty').hidden = perTarget.length > 0;
  }

  function renderTopPasses(topPasses) {
    var list = document.getElementById('top-passes');
    list.replaceChildren();
    var max = topPasses.reduce(function (m, p) { return Math.max(m, p.count); }, 0);
    topPasses.forEach(function (pass) {
      var li = el('li', { 'data-action': pass.action, 'data-count': pass.count });
      li.appendChild(el('span', { 'class': 'action' }, pass.action));
      li.appendChild(el('span', { 'class': 'count' }, String(pass.count)));
      // A CSS bar under each entry keeps the list readable when Chart.js is absent.
      var bar = el('span', { 'class': 'bar' });
      bar.style.width = (max > 0 ? (100 * pass.count / max) : 0) + '%';
      li.appendChild(bar);
      list.appendChild(li);
    });
    document.getElementById('top-passes-empty').hidden = topPasses.length > 0;

    if (!chartsAvailable)
      return;
    var labels = topPasses.map(function (p) { return p.action; });
    var counts = topPasses.map(function (p) { return p.count; });
    if (charts.passes) {
      charts.passes.data.labels = labels;
      charts.passes.data.datasets[0].data = counts;
      charts.passes.update();
      return;
    }
    charts.passes = new window.Chart(document.getElementById('top-passes-chart'), {
      type: 'bar',
      data: { labels: labels, datasets: [{ label: 'times chosen', data: counts, backgroundColor: '#2563eb', maxBarThickness: 22 }] },
      options: {
        indexAxis: 'y',
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: false } },
        scales: { x: { beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: 'times chosen' } } }
      }
    });
  }

  /// Draws the dashed "no change" line at a speedup of 1.0.
  var referenceLine = {
    id: 'referenceLine',
    afterDatasetsDraw: function (chart) {
      var y = chart.scales.y.getPixelForValue(1.0);
      var area = chart.chartArea;
      if (y < area.top || y > area.bottom)
        return;
      var ctx = chart.ctx;
      ctx.save();
      ctx.strokeStyle = '#6b7280';
      ctx.lineWidth = 1.5;
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      ctx.moveTo(area.left, y);
      ctx.lineTo(area.right, y);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = '#4b5563';
      ctx.font = '12px sans-serif';
      ctx.textAlign = 'right';
      ctx.fillText('baseline 1.0×', area.right - 4, y - 5);
      ctx.restore();
    }
  };

  function renderTimeline(timeline) {
    var body = document.querySelector('#timeline tbody');
    body.replaceChildren();
    timeline.forEach(function (point) {
      var tr = el('tr', { 'data-t': point.t, 'data-speedup': point.speedup, 'data-target': point.target });
      tr.appendChild(el('td', {}, formatTime(point.t, true)));
      tr.appendChild(el('td', {}, point.target));
      tr.appendChild(el('td', { 'class': 'num' }, point.speedup.toFixed(3) + '×'));
      body.appendChild(tr);
    });

    if (!chartsAvailable)
      return;
    // One series per target, sorted by name so colours stay put across refreshes.
    var targets = [];
    timeline.forEach(function (p) { if (targets.indexOf(p.target) < 0) targets.push(p.target); });
    targets.sort();
    var datasets = targets.map(function (target, i) {
      return {
        label: target,
        data: timeline.filter(function (p) { return p.target === target; })
                      .map(function (p) { return { x: p.t, y: p.speedup }; }),
        borderColor: colorFor(i),
        backgroundColor: colorFor(i),
        pointRadius: 4,
        tension: 0
      };
    });
    if (!charts.timeline)
      charts.timeline = createTimelineChart();
    charts.timeline.data.datasets = datasets;
    // With no points the x range is the epoch; its labels would only confuse.
    charts.timeline.options.scales.x.ticks.display = timeline.length > 0;
    charts.timeline.update();
  }

  function createTimelineChart() {
    return new window.Chart(document.getElementById('timeline-chart'), {
      type: 'line',
      data: { datasets: [] },
      plugins: [referenceLine],
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: true,
        interaction: { mode: 'nearest', intersect: false },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: {
            callbacks: {
              title: function (items) { return items.length ? formatTime(items[0].parsed.x, true) : ''; },
              label: function (item) { return item.dataset.label + ': ' + item.parsed.y.toFixed(3) + '×'; }
            }
          }
        },
        scales: {
          x: {
            type: 'linear',
            title: { display: true, text: 'time' },
            // Whole-second steps: finer ticks would repeat the same HH:MM:SS label.
            ticks: { precision: 0, maxTicksLimit: 8, callback: function (value) { return formatTime(value, false); } }
          },
          y: {
            suggestedMin: 0.9,
            suggestedMax: 1.1,
            title: { display: true, text: 'speedup over baseline (×)' },
            ticks: { callback: function (value) { return value + '×'; } }
          }
        }
      }
    });
  }

  function setStatus(text, isError) {
    var status = document.getElementById('status');
    status.textContent = text;
    status.classList.toggle('error', !!isError);
  }

  function load() {
    var headers = {};
    if (token)
      headers.Authorization = 'Bearer ' + token;
    return fetch('v1/stats', { headers: headers, cache: 'no-store' })
      .then(function (response) {
        if (response.status === 401 || response.status === 403)
          throw new Error('the server wants a token (HTTP ' + response.status +
                          '): open this page as /?token=YOUR_TOKEN');
        if (!response.ok)
          throw new Error('GET /v1/stats answered HTTP ' + response.status);
        return response.json();
      })
      .then(function (stats) {
        renderSummary(stats);
        renderPerTarget(stats.per_target || []);
        renderTopPasses(stats.top_passes || []);
        renderTimeline(stats.timeline || []);
        setStatus(stats.measured > 0 ? '' : 'No measured requests yet: POST /v1/optimize with "measure": true.', false);
        document.getElementById('updated').textContent = 'Updated ' + formatTime(Date.now() / 1000, true);
        document.body.setAttribute('data-state', 'ready');
      })
      .catch(function (error) {
        setStatus('Could not load statistics: ' + error.message, true);
        document.body.setAttribute('data-state', 'error');
      });
  }

  load();
  window.setInterval(load, REFRESH_MS);
})();
