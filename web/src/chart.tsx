import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

/**
 * A live line chart (uPlot) over time: `data[0]` the x values in unix seconds, one array per
 * series after it. The canvas says nothing to assistive technology, so the figure carries a
 * caption and the series' latest values as text (`summary`), and uPlot's own legend (a table
 * without headers) is left out for that text legend.
 */

export interface ChartSeries {
  label: string;
  /** A CSS colour of the line. */
  stroke: string;
  /** How a value reads in the legend ("12.5 /s"). */
  format: (v: number) => string;
}

export interface ChartProps {
  /** The figure's caption (also its accessible name). */
  caption: string;
  series: ChartSeries[];
  data: [number[], ...number[][]];
  /** Fixed y range (a percentage: [0, 100]); else from 0 to the data's maximum. */
  yRange?: [number, number];
  height?: number;
}

const DEFAULT_HEIGHT = 200;

/** The shortest time the x axis spans, in seconds. */
const MIN_SPAN_S = 60;

/**
 * The x range: the samples' times, at least a minute wide and ending at the newest, so the first
 * samples do not spread over sub-second ticks (with fewer than two, uPlot's own range is none).
 */
function timeRange(u: uPlot): [number, number] {
  const xs = u.data[0] ?? [];
  const newest = xs.length > 0 ? xs[xs.length - 1]! : Date.now() / 1000;
  const oldest = xs.length > 0 ? xs[0]! : newest;
  return [Math.min(oldest, newest - MIN_SPAN_S), newest];
}

export function Chart({ caption, series, data, yRange, height = DEFAULT_HEIGHT }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);

  // built once; the series and range of a chart do not change while it is shown
  useEffect(() => {
    const el = box.current!;
    const options: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { show: false },
      cursor: { show: false },
      scales: {
        // at least a minute wide, so the first samples do not stretch over sub-second ticks
        x: { time: true, range: timeRange },
        y: { range: yRange ? () => yRange : (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
      },
      axes: [
        { stroke: "#4a5565", grid: { stroke: "#d5dbe333" } },
        { stroke: "#4a5565", grid: { stroke: "#d5dbe3" }, size: 50 },
      ],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, points: { show: false } }))],
    };
    const u = new uPlot(options, data as uPlot.AlignedData, el);
    plot.current = u;
    const resize = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = undefined;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData);
  }, [data]);

  const last = data[0].length - 1;
  return (
    <figure class="chart-figure">
      <figcaption>{caption}</figcaption>
      <div ref={box} class="chart" role="img" aria-label={`${caption}: a line chart of the last minutes`} />
      <ul class="chart-legend">
        {series.map((s, i) => (
          <li key={s.label}>
            <span class="swatch" style={{ background: s.stroke }} aria-hidden="true" />
            {s.label}: <strong>{last >= 0 ? s.format(data[i + 1]![last]!) : "no data yet"}</strong>
          </li>
        ))}
      </ul>
    </figure>
  );
}
