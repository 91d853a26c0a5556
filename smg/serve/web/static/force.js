// force.js: the map's layout of the nodes that have edges on it. A plain
// force simulation in the manner of d3-force (links pull to a length,
// every pair of nodes pushes apart, overlapping nodes are separated, a weak
// pull to the centre keeps the components together), on typed arrays and
// with no animation: a few hundred nodes lay out in tens of milliseconds,
// where Cytoscape's own cose took hundreds. It starts from a spiral, most
// important nodes first, and uses no randomness: the same map lays out the
// same way each time.

/**
 * forceLayout returns the positions (x0, y0, x1, y1, …) of n nodes with
 * the radii r (a Float64Array of n), joined by edges (an array of
 * [source, target, strength in 0..1, pull] with node indexes; pull, 1 if
 * left out, scales how hard the link pulls). The nodes should
 * come most important first: they start nearest the centre.
 */
export function forceLayout(n, r, edges, opts = {}) {
  const ticks = opts.ticks || (n > 600 ? 120 : n > 300 ? 200 : 300);
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const vx = new Float64Array(n);
  const vy = new Float64Array(n);
  // The spiral d3-force starts from.
  const angle = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < n; i++) {
    const rad = 12 * Math.sqrt(0.5 + i);
    x[i] = rad * Math.cos(i * angle);
    y[i] = rad * Math.sin(i * angle);
  }
  const m = edges.length;
  const src = new Int32Array(m);
  const dst = new Int32Array(m);
  const len = new Float64Array(m);
  const str = new Float64Array(m);
  const bias = new Float64Array(m);
  const degree = new Float64Array(n);
  for (let k = 0; k < m; k++) {
    const [s, t] = edges[k];
    src[k] = s;
    dst[k] = t;
    degree[s]++;
    degree[t]++;
  }
  for (let k = 0; k < m; k++) {
    const s = src[k];
    const t = dst[k];
    const w = Math.max(0, Math.min(1, edges[k][2] || 0));
    len[k] = 34 + r[s] + r[t] + 16 * (1 - w);
    str[k] = (edges[k][3] ?? 1) / Math.max(1, Math.min(degree[s], degree[t]));
    bias[k] = degree[s] / (degree[s] + degree[t] || 1);
  }
  const charge = opts.charge || -90;
  const gravity = opts.gravity || 0.045;
  const maxDist2 = 500 * 500;
  const alphaMin = 0.002;
  const decay = 1 - alphaMin ** (1 / ticks);
  const friction = 0.6;
  let alpha = 1;
  for (let tick = 0; tick < ticks; tick++) {
    alpha += (0 - alpha) * decay;
    // Links.
    for (let k = 0; k < m; k++) {
      const s = src[k];
      const t = dst[k];
      if (s === t) continue;
      let dx = x[t] + vx[t] - x[s] - vx[s];
      let dy = y[t] + vy[t] - y[s] - vy[s];
      let l = Math.sqrt(dx * dx + dy * dy) || 1e-6;
      l = ((l - len[k]) / l) * alpha * str[k];
      dx *= l;
      dy *= l;
      vx[t] -= dx * bias[k];
      vy[t] -= dy * bias[k];
      vx[s] += dx * (1 - bias[k]);
      vy[s] += dy * (1 - bias[k]);
    }
    // Every pair: repulsion, and separation where they overlap.
    const a = charge * alpha;
    for (let i = 0; i < n; i++) {
      const xi = x[i];
      const yi = y[i];
      const ri = r[i];
      let fx = 0;
      let fy = 0;
      for (let j = i + 1; j < n; j++) {
        let dx = x[j] - xi;
        let dy = y[j] - yi;
        let l2 = dx * dx + dy * dy;
        if (l2 > maxDist2) continue;
        if (l2 < 1) {
          // Coincident: a fixed nudge, so that none stays on another.
          dx = ((i * 7 + j * 13) % 11) - 5 || 1;
          dy = ((i * 11 + j * 7) % 13) - 6 || 1;
          l2 = dx * dx + dy * dy;
        }
        let w = a / l2;
        const rr = ri + r[j] + 6;
        if (l2 < rr * rr) {
          // Overlap: push apart by part of the overlap.
          const l = Math.sqrt(l2);
          w -= ((rr - l) / l) * 0.35;
        }
        fx += dx * w;
        fy += dy * w;
        vx[j] -= dx * w;
        vy[j] -= dy * w;
      }
      vx[i] += fx;
      vy[i] += fy;
    }
    // A weak pull to the centre, and motion.
    const g = gravity * alpha;
    for (let i = 0; i < n; i++) {
      vx[i] -= x[i] * g;
      vy[i] -= y[i] * g;
      vx[i] *= friction;
      vy[i] *= friction;
      x[i] += vx[i];
      y[i] += vy[i];
    }
  }
  const out = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    out[2 * i] = x[i];
    out[2 * i + 1] = y[i];
  }
  return out;
}
