/**
 * The Arms page's charts as plain SVG, readable without hovering: a legend, axis ticks and value labels, laid
 * out so that no label overlaps another or runs off the drawing. Figures come from aggregate rows.
 */
import type { FC } from "hono/jsx";
import type { ArmRow } from "../../read/figures.ts";

/** The first arms' colours (Tableau 10), in arm order. */
export const COLORS = [
  "#4c78a8",
  "#f58518",
  "#54a24b",
  "#e45756",
  "#72b7b2",
  "#eeca3b",
  "#b279a2",
  "#ff9da6",
  "#9d755d",
  "#bab0ac",
];

/**
 * The colour of the `i`th arm: Tableau 10's, then hues a golden angle apart at three lightnesses, so no two of
 * 60 arms share one.
 */
export function armColor(i: number): string {
  if (i < COLORS.length) return COLORS[i];
  const n = i - COLORS.length;
  return `hsl(${((n * 137.508) % 360).toFixed(1)} 62% ${[42, 58, 32][n % 3]}%)`;
}

/** Approximate rendered width of text in system-ui at a font size (generous, so boxes never collide). */
export function textWidth(text: string, size: number): number {
  return text.length * size * 0.62 + 2;
}

/** A label box. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** True when two boxes intersect. */
export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** Round tick values from 0 covering `max` (1, 2 or 5 × 10ⁿ steps). */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  if (out[out.length - 1] < max) out.push(Number((out[out.length - 1] + step).toFixed(10)));
  return out;
}

function pct(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}

function usd(v: number, step = v): string {
  return `$${v.toFixed(step >= 10 ? 0 : step >= 0.1 ? (step >= 1 && Number.isInteger(step) ? 0 : 2) : 3)}`;
}

interface LegendItem {
  label: string;
  color: string;
}

/** Legend entries laid out left to right, wrapping at `width`. */
function legendLayout(items: LegendItem[], width: number, x0: number, y0: number) {
  let x = x0, y = y0;
  return items.map((it) => {
    const w = 14 + textWidth(it.label, 11) + 14;
    if (x + w > width && x > x0) {
      x = x0;
      y += 16;
    }
    const at = { ...it, x, y };
    x += w;
    return at;
  });
}

const Legend: FC<{ items: ReturnType<typeof legendLayout> }> = ({ items }) => (
  <g class="legend">
    {items.map((it) => (
      <g>
        <rect x={it.x} y={it.y - 9} width="10" height="10" fill={it.color} />
        <text x={it.x + 14} y={it.y} font-size="11">{it.label}</text>
      </g>
    ))}
  </g>
);

interface Est {
  value: number | null;
  lo: number | null;
  hi: number | null;
}

function metricsOf(rows: readonly ArmRow[]): { name: string; est: (r: ArmRow) => Est | undefined }[] {
  const ks = [...new Set(rows.flatMap((r) => r.pass_hat_k.map((p) => p.k)))].filter((k) => k >= 2 && k <= 5)
    .sort();
  return [
    { name: "pass@1", est: (r: ArmRow) => r.pass_at_1_ci },
    ...ks.map((k) => ({ name: `pass^${k}`, est: (r: ArmRow) => r.pass_hat_k.find((p) => p.k === k) })),
  ];
}

/** Grouped bars: pass@1 and pass^k per arm with 95% CI whiskers, value labels and a legend. */
export const PassChart: FC<{ rows: readonly ArmRow[] }> = ({ rows }) => {
  const metrics = metricsOf(rows);
  const bw = 34, gap = 6, groupGap = 36, left = 46, right = 16;
  const groupW = rows.length * (bw + gap) - gap;
  const plotW = metrics.length * groupW + (metrics.length - 1) * groupGap;
  const legendItems = rows.map((r, i) => ({ label: r.arm, color: armColor(i) }));
  const W0 = Math.max(left + plotW + right, 260);
  const legend = legendLayout(legendItems, W0 - right, left, 14);
  const legendBottom = (legend.at(-1)?.y ?? 14) + 6;
  const top = legendBottom + 18, plotH = 170, bottom = top + plotH;
  const H = bottom + 30;
  const y = (v: number) => bottom - v * plotH;
  const groupX = (mi: number) => left + mi * (groupW + groupGap);
  return (
    <svg
      id="pass-chart"
      class="chart"
      viewBox={`0 0 ${W0} ${H}`}
      width={W0}
      height={H}
      role="img"
      aria-label="pass@1 and pass^k per arm with 95% confidence intervals"
    >
      <Legend items={legend} />
      {[0, 0.25, 0.5, 0.75, 1].map((t) => (
        <g class="tick">
          <line x1={left} x2={W0 - right} y1={y(t)} y2={y(t)} stroke="#e5e7eb" />
          <text x={left - 6} y={y(t) + 4} font-size="10" text-anchor="end">{`${t * 100}%`}</text>
        </g>
      ))}
      <line x1={left} x2={left} y1={top} y2={bottom} stroke="#9ca3af" />
      {metrics.map((m, mi) =>
        rows.map((r, ai) => {
          const est = m.est(r);
          if (!est || est.value === null) return null;
          const x = groupX(mi) + ai * (bw + gap);
          const cx = x + bw / 2;
          const labelY = Math.max(top - 2, y(est.hi ?? est.value) - 4);
          return (
            <g class="bar">
              <rect
                x={x}
                y={y(est.value)}
                width={bw}
                height={Math.max(0.5, bottom - y(est.value))}
                fill={armColor(ai)}
              >
                <title>{`${r.arm} ${m.name}: ${pct(est.value)}`}</title>
              </rect>
              {est.lo !== null && est.hi !== null
                ? (
                  <g stroke="#111" stroke-width="1.2">
                    <line x1={cx} x2={cx} y1={y(est.lo)} y2={y(est.hi)} />
                    <line x1={cx - 5} x2={cx + 5} y1={y(est.lo)} y2={y(est.lo)} />
                    <line x1={cx - 5} x2={cx + 5} y1={y(est.hi)} y2={y(est.hi)} />
                  </g>
                )
                : null}
              <text x={cx} y={labelY} font-size="9" text-anchor="middle" class="value">{pct(est.value)}</text>
            </g>
          );
        })
      )}
      {metrics.map((m, mi) => (
        <text x={groupX(mi) + groupW / 2} y={bottom + 16} font-size="11" text-anchor="middle" class="axis">
          {m.name}
        </text>
      ))}
    </svg>
  );
};

/** Places point labels right of their points, moving any that would overlap or leave the plot. */
export function placeLabels(
  points: { x: number; y: number; label: string }[],
  bounds: Box,
  size = 11,
): Box[] {
  const placed: Box[] = [];
  const order = points.map((p, i) => ({ p, i })).sort((a, b) => a.p.y - b.p.y || a.p.x - b.p.x);
  const out: Box[] = new Array(points.length);
  for (const { p, i } of order) {
    const w = textWidth(p.label, size), h = size + 2;
    const candidates: Box[] = [];
    for (let dy = 0; dy <= 8 * h; dy += h) {
      for (const sgn of dy ? [1, -1] : [1]) {
        candidates.push({ x: p.x + 9, y: p.y - h / 2 + sgn * dy, w, h });
        candidates.push({ x: p.x - 9 - w, y: p.y - h / 2 + sgn * dy, w, h });
      }
    }
    const inside = (b: Box) =>
      b.x >= bounds.x && b.y >= bounds.y && b.x + b.w <= bounds.x + bounds.w &&
      b.y + b.h <= bounds.y + bounds.h;
    const box = candidates.find((b) => inside(b) && !placed.some((q) => overlaps(b, q))) ?? {
      x: Math.min(Math.max(bounds.x, p.x + 9), bounds.x + bounds.w - w),
      y: Math.min(Math.max(bounds.y, p.y - h / 2), bounds.y + bounds.h - h),
      w,
      h,
    };
    placed.push(box);
    out[i] = box;
  }
  return out;
}

/** Scatter: cost per trial (the recipe's) against pass@1, one labelled point per arm, with axis ticks. */
export const CostChart: FC<{ rows: readonly ArmRow[]; recipe: string }> = ({ rows, recipe }) => {
  const priced = rows.map((r, i) => ({ r, i })).filter(({ r }) =>
    r.mean_cost_usd !== null && r.pass_at_1 !== null
  );
  const W = 460, left = 50, right = 20, top = 14, plotH = 200, bottom = top + plotH, H = bottom + 44;
  const maxCost = Math.max(0.01, ...priced.map(({ r }) => r.mean_cost_usd!));
  const xt = niceTicks(maxCost, 5);
  const xMax = xt[xt.length - 1];
  const x = (c: number) => left + (c / xMax) * (W - left - right);
  const y = (v: number) => bottom - v * plotH;
  const points = priced.map(({ r }) => ({ x: x(r.mean_cost_usd!), y: y(r.pass_at_1!), label: r.arm }));
  const boxes = placeLabels(points, { x: left + 2, y: top, w: W - right - left - 2, h: plotH - 2 });
  return (
    <svg
      id="cost-chart"
      class="chart"
      viewBox={`0 0 ${W} ${H}`}
      width={W}
      height={H}
      role="img"
      aria-label={`cost per trial (${recipe}) against pass@1`}
    >
      {[0, 0.25, 0.5, 0.75, 1].map((t) => (
        <g class="tick">
          <line x1={left} x2={W - right} y1={y(t)} y2={y(t)} stroke="#e5e7eb" />
          <text x={left - 6} y={y(t) + 4} font-size="10" text-anchor="end">{`${t * 100}%`}</text>
        </g>
      ))}
      {xt.map((t, i) => (
        <g class="tick">
          <line x1={x(t)} x2={x(t)} y1={bottom} y2={bottom + 4} stroke="#9ca3af" />
          <text
            x={x(t)}
            y={bottom + 15}
            font-size="10"
            text-anchor={i === xt.length - 1 ? "end" : i === 0 ? "start" : "middle"}
          >
            {usd(t, xt[1] ?? t)}
          </text>
        </g>
      ))}
      <line x1={left} x2={W - right} y1={bottom} y2={bottom} stroke="#9ca3af" />
      <line x1={left} x2={left} y1={top} y2={bottom} stroke="#9ca3af" />
      <text x={left + (W - left - right) / 2} y={H - 8} font-size="11" text-anchor="middle" class="axis">
        {`mean cost per trial (${recipe})`}
      </text>
      {priced.map(({ r, i }, n) => (
        <g class="point">
          {r.pass_at_1_ci.lo !== null && r.pass_at_1_ci.hi !== null
            ? (
              <line
                x1={points[n].x}
                x2={points[n].x}
                y1={y(r.pass_at_1_ci.lo)}
                y2={y(r.pass_at_1_ci.hi)}
                stroke={armColor(i)}
                stroke-width="1.5"
              />
            )
            : null}
          <circle cx={points[n].x} cy={points[n].y} r="5" fill={armColor(i)}>
            <title>{`${r.arm}: ${usd(r.mean_cost_usd!)} per trial, pass@1 ${pct(r.pass_at_1!)}`}</title>
          </circle>
          <text x={boxes[n].x} y={boxes[n].y + boxes[n].h - 3} font-size="11">{r.arm}</text>
        </g>
      ))}
    </svg>
  );
};
