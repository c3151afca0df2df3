// SPDX-License-Identifier: MIT
// Run inside a roofbench report by tests/browser_test.sh: measures every <text> of every chart
// with the browser's own layout (getBBox, turned by getCTM into the chart's coordinates, so a
// rotated label is its rotated box) and reports, in a <pre> of id rb-check, each pair of texts
// that overlap, each text over a plotted point, each text outside its chart, each line (leader,
// roof, arrow) across a text, and where the charts' panels are.
(function () {
  var TOL = 0.5; // px two boxes may share: glyph boxes of touching lines
  function corners(el) {
    var b = el.getBBox(), m = el.getCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height],
            [b.x, b.y + b.height]].map(function (p) {
      return [m.a * p[0] + m.c * p[1] + m.e, m.b * p[0] + m.d * p[1] + m.f];
    });
  }
  function apart(a, b) {
    // separating axes: the edge normals of both boxes
    var quads = [a, b];
    for (var q = 0; q < 2; q++)
      for (var i = 0; i < 4; i++) {
        var p = quads[q][i], r = quads[q][(i + 1) % 4];
        var nx = -(r[1] - p[1]), ny = r[0] - p[0], len = Math.hypot(nx, ny);
        if (len === 0) continue;
        nx /= len; ny /= len;
        var amin = Infinity, amax = -Infinity, bmin = Infinity, bmax = -Infinity;
        a.forEach(function (c) { var v = c[0] * nx + c[1] * ny; amin = Math.min(amin, v); amax = Math.max(amax, v); });
        b.forEach(function (c) { var v = c[0] * nx + c[1] * ny; bmin = Math.min(bmin, v); bmax = Math.max(bmax, v); });
        if (amax <= bmin + TOL || bmax <= amin + TOL) return true;
      }
    return false;
  }
  var lines = [], overlaps = 0, covers = 0, outside = 0, texts = 0, marks = 0, crossed = 0,
      struck = 0;
  document.querySelectorAll('svg').forEach(function (svg, s) {
    var w = svg.width.baseVal.value, h = svg.height.baseVal.value;
    var t = Array.prototype.slice.call(svg.querySelectorAll('text')).map(function (el) {
      return {el: el, q: corners(el), s: el.textContent};
    });
    var pts = Array.prototype.slice.call(svg.querySelectorAll('.pt, .pt-overview')).map(corners);
    texts += t.length;
    marks += pts.length;
    for (var i = 0; i < t.length; i++) {
      t[i].q.forEach(function (c) {
        if (c[0] < -TOL || c[1] < -TOL || c[0] > w + TOL || c[1] > h + TOL) c.out = true;
      });
      if (t[i].q.some(function (c) { return c.out; })) {
        outside++;
        lines.push('outside chart ' + s + ': "' + t[i].s + '"');
      }
      for (var k = i + 1; k < t.length; k++)
        if (!apart(t[i].q, t[k].q)) {
          overlaps++;
          lines.push('overlap in chart ' + s + ': "' + t[i].s + '" and "' + t[k].s + '"');
        }
      for (var p = 0; p < pts.length; p++)
        if (!apart(t[i].q, pts[p])) {
          covers++;
          lines.push('text over a point in chart ' + s + ': "' + t[i].s + '"');
        }
    }
    // lines across texts: a leader, a roof line or an arrow across any text is a fault (the
    // layout places every label clear of them); a roof line across a roof's label is named so
    function segs(sel) {
      return Array.prototype.slice.call(svg.querySelectorAll(sel)).map(function (l) {
        var a = [+l.getAttribute('x1'), +l.getAttribute('y1')];
        var b = [+l.getAttribute('x2'), +l.getAttribute('y2')];
        return [a, b, b, a];
      });
    }
    var leaders = segs('g.leader line'), roofs = segs('g.roof line'), arrows = segs('g.arrow line');
    t.forEach(function (x) {
      var roofLabel = x.el.parentNode.classList.contains('roof-label');
      leaders.forEach(function (l) {
        if (!apart(x.q, l)) {
          crossed++;
          lines.push('leader across a text in chart ' + s + ': "' + x.s + '"');
        }
      });
      roofs.concat(arrows).forEach(function (l, k) {
        if (apart(x.q, l)) return;
        if (roofLabel && k < roofs.length) {
          crossed++;
          lines.push('roof line across a roof label in chart ' + s + ': "' + x.s + '"');
        } else {
          struck++;
          lines.push('line across a text in chart ' + s + ': "' + x.s + '" by ' + (k < roofs.length ? 'a roof' : 'an arrow'));
        }
      });
    });
    svg.querySelectorAll('g[id^="rb-"]').forEach(function (g) {
      var b = g.getBBox();
      lines.push('panel ' + s + ' ' + g.id + ' ' + [b.x, b.y, b.width, b.height].map(Math.round).join(' '));
    });
  });
  var plotted = 0;
  document.querySelectorAll('table.rb tbody tr').forEach(function (tr) {
    if (tr.cells.length > 6 && tr.cells[6].dataset.v !== '' && !tr.dataset.unplotted) plotted++;
  });
  lines.unshift('summary texts=' + texts + ' markers=' + marks + ' points=' +
                document.querySelectorAll('svg .pt').length + ' rated_rows=' + plotted +
                ' overlaps=' + overlaps + ' covers=' + covers + ' outside=' + outside +
                ' crossed=' + crossed + ' struck=' + struck);
  var pre = document.createElement('pre');
  pre.id = 'rb-check';
  pre.textContent = lines.join('\n');
  document.body.appendChild(pre);
})();
