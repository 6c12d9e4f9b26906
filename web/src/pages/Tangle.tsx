import { useMemo, useState } from "preact/hooks";
import { Card, ErrorNote } from "../components";
import { formatNumber } from "../format";
import { useConfirmedMilestone, useTick, useTitle } from "../hooks";
import { useNodeInfo } from "../nodeInfo";
import { FiguresCard } from "../tangle/FiguresCard";
import { TangleGraph } from "../tangle/graph";
import { Legend } from "../tangle/Legend";
import { TangleWindow } from "../tangle/model";
import { NewestBlocks } from "../tangle/NewestBlocks";
import { PauseToolbar } from "../tangle/PauseToolbar";
import { SamplingNote } from "../tangle/SamplingNote";
import { SelectedBlock } from "../tangle/SelectedBlock";
import { useBlockFeed } from "../tangle/useBlockFeed";
import { usePausableDrawing } from "../tangle/usePausableDrawing";
import { useRedraw } from "../tangle/useRedraw";
import { useSampling } from "../tangle/useSampling";
import { useSelection } from "../tangle/useSelection";
import { useWatchedBlocks } from "../tangle/useWatchedBlocks";

/**
 * The live tangle, as Hornet's node-dashboard shows it in its visualizer: the recent blocks
 * drawn as a DAG as the event API announces them (README, Event API): `blocks` (each block's
 * bytes: the page reads its ID, parents and payload type with the app's codec, explorer/codec.ts,
 * loaded with the page), `block-metadata/referenced`
 * (referenced or conflicting, TIP-2 white-flag) and `milestone-info/confirmed`; under heavy
 * traffic `block-metadata/{id}` of a few blocks (below).
 *
 * Bounded and throttled: the window keeps the last WINDOW blocks; events update it as they
 * come, and the graph and the text are redrawn from it on an animation frame at most every
 * REDRAW_MS, and further apart when a redraw costs more than DRAW_SHARE of a core would allow
 * (a full window under heavy traffic: the page must not take the CPU of the node it watches,
 * bench/dashboard.ts). A background tab, which gets no frames, redraws nothing.
 *
 * Sampled under heavy traffic: every block received costs the browser (MQTT decoding, the ID's
 * hash, a place in the layout), and a window of WINDOW blocks shows no more than WINDOW of them.
 * When more than SAMPLE_ABOVE blocks arrive on `blocks` within a second (the page's own count:
 * the info route's figure lags by a milestone or more), the page follows `blocks` in bursts of
 * BURST_MS or BURST_BLOCKS blocks, whichever is first, every CYCLE_MS (FAST_CYCLE_MS above
 * FAST_ABOVE blocks a second), until a burst sees fewer than SAMPLE_BELOW a second; a burst
 * replaces the last one in the window and is laid out and drawn once, when it ends
 * (tangle/useSampling.ts). Meanwhile it leaves `block-metadata/referenced` (every
 * referenced block's metadata: as many messages as `blocks` itself) and asks
 * `block-metadata/{id}` of a few sampled blocks instead (WATCHED at once, newest first): a
 * referenced block marks its past cone in the window referenced too (TIP-2: a milestone
 * references the whole past cone of its parents), and transactions are asked first, as only
 * their own metadata can say conflicting (tangle/useWatchedBlocks.ts). The page says so, and its
 * rates are then the node's.
 *
 * Pause freezes the drawing (the window and the counters go on), so a block can be picked; a
 * click on a block selects it, and its explorer page is one link away. Everything the canvas
 * shows is also in words: the counts, a legend, the newest blocks as links, the selected block.
 */

/** Blocks kept and drawn at most. */
const WINDOW = 1000;
/** Newest blocks listed in words. */
const LISTED = 8;

/** The live tangle page. */
export function Tangle() {
  useTitle("Live tangle");
  const model = useMemo(() => new TangleWindow(WINDOW), []);
  const { data: info } = useNodeInfo();
  // a redraw waits while a burst runs (`sampler` is read when a redraw comes, after this render)
  const redraw = useRedraw(() => sampler.holdsDrawing());
  const sampler = useSampling(model, info?.metrics.blocksPerSecond, redraw.schedule);
  const codec = useBlockFeed(model, sampler, redraw.schedule);
  const [confirmed, setConfirmed] = useState<number | undefined>(undefined);
  useConfirmedMilestone((m) => setConfirmed(m.index));
  const asked = useWatchedBlocks(model, redraw.schedule, { ...sampler, confirmed });
  const drawing = usePausableDrawing(model, redraw.version);
  const { selectedId, selected, select } = useSelection(model);
  // the rates move on when nothing arrives (the text only: the graph is redrawn for new events)
  useTick();

  const { data, paused } = drawing;
  const f = model.figures(Date.now());
  const summary =
    `The tangle: ${formatNumber(data.nodes.length)} recent block${data.nodes.length === 1 ? "" : "s"} drawn left to right, oldest to newest, ` +
    `${formatNumber(f.referenced)} referenced, ${formatNumber(f.conflicting)} conflicting, ` +
    `${formatNumber(f.milestones)} milestones${paused ? ", paused" : ""}.`;

  return (
    <>
      <h1>Live tangle</h1>
      <Card title="Tangle" id="tangle">
        <PauseToolbar
          paused={paused}
          windowSize={WINDOW}
          arrivedSincePause={f.seen - drawing.seenAtPause}
          redrawEveryMs={redraw.timing.every}
          onToggle={drawing.toggle}
        />
        {codec.error && <ErrorNote message={codec.error} retry={codec.reload} />}
        {sampler.sampling && <SamplingNote rate={sampler.rate} cycleMs={sampler.cycleMs} />}
        <figure
          class="chart-figure"
          data-drawn={data.nodes.length}
          data-blocks={f.blocks}
          data-referenced={f.referenced}
          data-conflicting={f.conflicting}
          data-milestones={f.milestones}
          data-seen={f.seen}
          data-sampling={String(sampler.sampling)}
          data-asked-referenced={asked}
          data-redraw-ms={redraw.timing.every}
          data-redraw-cost={Math.round(redraw.timing.cost)}
        >
          <figcaption id="tangle-summary">{summary}</figcaption>
          <TangleGraph
            data={data}
            paint={paused ? undefined : redraw.version}
            selectedId={selectedId}
            onSelect={select}
            onCost={redraw.onCost}
            label="The tangle's recent blocks as a graph; click a block to select it"
            describedBy="tangle-summary tangle-legend"
          />
          <Legend />
        </figure>
      </Card>
      <FiguresCard
        figures={f}
        drawn={data.nodes.length}
        sampling={sampler.sampling}
        info={info}
        confirmed={confirmed}
        redraw={redraw.timing}
      />
      {selected && <SelectedBlock node={selected} />}
      <NewestBlocks blocks={data.nodes.slice(-LISTED).reverse()} onSelect={select} />
    </>
  );
}
