import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Card, Stats } from "../components";
import { type MilestoneInfoEvent, Topics } from "../events";
import { formatNumber, shortHex } from "../format";
import { useEvent, useJsonEvent, useTitle } from "../hooks";
import { useNodeInfo } from "../nodeInfo";
import { href } from "../paths";
import { PayloadType, readBlock } from "../tangle/blockBytes";
import { STATE_COLOURS, TangleGraph } from "../tangle/graph";
import { type ReferencedMetadata, STATES, type TangleNode, TangleWindow } from "../tangle/model";

/**
 * The live tangle, as Hornet's node-dashboard shows it in its visualizer: the recent blocks
 * drawn as a DAG as the event API announces them (README, Event API): `blocks` (each block's
 * bytes: the page reads its ID, parents and payload type), `block-metadata/referenced`
 * (referenced or conflicting, TIP-2 white-flag) and `milestone-info/confirmed`. Three topics
 * and no per-block subscription, whatever the traffic.
 *
 * Bounded and throttled: the window keeps the last WINDOW blocks; events update it as they
 * come, and the graph and the text are redrawn from it on an animation frame at most every
 * REDRAW_MS, and further apart when a redraw costs more than DRAW_SHARE of a core would allow
 * (a full window under heavy traffic: the page must not take the CPU of the node it watches,
 * bench/dashboard.ts). A background tab, which gets no frames, redraws nothing.
 *
 * Sampled under heavy traffic: receiving every block costs the browser about a tenth of a core
 * per thousand blocks a second, far more than a window of WINDOW blocks can show. When the node
 * takes in more than SAMPLE_ABOVE blocks a second (its own figure, `GET /api/core/v2/info`), the
 * page follows `blocks` in bursts of BURST_MS every CYCLE_MS, and `block-metadata/referenced`
 * from each burst until the milestone after it is confirmed, so the blocks of a burst are seen
 * referenced; the page says so, and its rates are then the node's. Pause freezes the
 * drawing (the window and the counters go on), so a block can be picked; a click on a block
 * selects it, and its explorer page is one link away. Everything the canvas shows is also in
 * words: the counts, a legend, the newest blocks as links, the selected block.
 */

/** Blocks kept and drawn at most. */
const WINDOW = 1000;
/** Shortest time between two redraws of the graph and the counts, in ms. */
const REDRAW_MS = 250;
/** Share of one core the graph's redraws may take: after a redraw that cost c ms, the next waits c / DRAW_SHARE ms. */
const DRAW_SHARE = 0.04;
/** Blocks a second (the node's figure) above which the page samples, and below which it stops again. */
const SAMPLE_ABOVE = 250;
const SAMPLE_BELOW = 150;
/** When sampling: a burst of blocks every CYCLE_MS, lasting BURST_MS. */
const BURST_MS = 1000;
const CYCLE_MS = 5000;
/** When sampling: how long after a burst `block-metadata/referenced` is followed at most. */
const REFERENCED_TAIL_MS = 3000;
/** Newest blocks listed in words. */
const LISTED = 8;

const PAYLOAD_WORDS: Record<number, string> = {
  [PayloadType.TaggedData]: "tagged data",
  [PayloadType.Transaction]: "transaction",
  [PayloadType.Milestone]: "milestone",
};
const payloadWords = (t: number | null) => (t === null ? "no payload" : (PAYLOAD_WORDS[t] ?? `type ${t}`));
const stateWords = (n: TangleNode) =>
  n.milestoneIndex !== undefined ? `milestone ${formatNumber(n.milestoneIndex)}` : n.state;
const blockHref = (id: string) => href(`/explorer/block/${id}`);

function Legend() {
  return (
    <ul class="tangle-legend" id="tangle-legend" aria-label="Legend">
      {STATES.map((s) => (
        <li key={s.state} title={s.description}>
          <span class={`dot ${s.state}`} style={{ background: STATE_COLOURS[s.state] }} aria-hidden="true" />
          <strong>{s.label}</strong>: {s.description}
        </li>
      ))}
      <li>lines: from a block to each of its parents</li>
    </ul>
  );
}

function SelectedBlock({ node }: { node: TangleNode }) {
  return (
    <Card title="Selected block" id="selected-block">
      <p data-selected={node.id}>
        <a href={blockHref(node.id)}>Open block {shortHex(node.id)} in the explorer</a>
      </p>
      <Stats
        items={[
          ["Block ID", <code key="id">{node.id}</code>, "selected-id"],
          ["State", stateWords(node), "selected-state"],
          ["Payload", payloadWords(node.payloadType), "selected-payload"],
          [
            "Referenced by milestone",
            node.referencedBy === undefined ? "not yet" : formatNumber(node.referencedBy),
            "selected-referenced-by",
          ],
          ["Parents", String(node.parents.length), "selected-parents"],
        ]}
      />
      <ul class="latest-blocks" aria-label="Parents of the selected block">
        {node.parents.map((p) => (
          <li key={p}>
            <a href={blockHref(p)} class="mono">
              parent {shortHex(p)}
            </a>
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** The live tangle page. */
export function Tangle() {
  useTitle("Live tangle");
  const model = useMemo(() => new TangleWindow(WINDOW), []);
  const [version, setVersion] = useState(0);
  const [paused, setPaused] = useState(false);
  /** Blocks seen when the drawing was paused. */
  const seenAtPause = useRef(0);
  const [selectedId, setSelectedId] = useState<string | undefined>(undefined);
  /** The selected block as last seen in the window (it may have left it since). */
  const selectedLast = useRef<TangleNode | undefined>(undefined);
  const [confirmed, setConfirmed] = useState<number | undefined>(undefined);
  const malformed = useRef(0);

  // one redraw per animation frame at most, and not more often than REDRAW_MS
  const scheduled = useRef(false);
  const lastRedraw = useRef(0);
  /** Time between two redraws, from the last one's cost. */
  const [redraw, setRedraw] = useState({ every: REDRAW_MS, cost: 0 });
  const redrawEvery = useRef(REDRAW_MS);
  const onCost = useCallback((ms: number) => {
    redrawEvery.current = Math.max(REDRAW_MS, Math.ceil(ms / DRAW_SHARE));
    setRedraw({ every: redrawEvery.current, cost: ms });
  }, []);
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );
  const schedule = useCallback(() => {
    if (scheduled.current) return;
    scheduled.current = true;
    const wait = Math.max(0, lastRedraw.current + redrawEvery.current - performance.now());
    setTimeout(() => {
      requestAnimationFrame(() => {
        scheduled.current = false;
        if (!alive.current) return;
        lastRedraw.current = performance.now();
        setVersion((v) => v + 1);
      });
    }, wait);
  }, []);

  // sampling under heavy traffic: which topics are followed now
  const { data: info } = useNodeInfo();
  const nodeRate = info?.metrics.blocksPerSecond;
  const [sampling, setSampling] = useState(false);
  useEffect(() => {
    if (nodeRate === undefined) return;
    if (!sampling && nodeRate > SAMPLE_ABOVE) setSampling(true);
    else if (sampling && nodeRate < SAMPLE_BELOW) setSampling(false);
  }, [nodeRate, sampling]);
  const [follow, setFollow] = useState({ blocks: true, referenced: true });
  const confirmedRef = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!sampling) {
      setFollow({ blocks: true, referenced: true });
      return;
    }
    let stopped = false;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const later = (ms: number, f: () => void) => timers.push(setTimeout(() => !stopped && f(), ms));
    const burst = () => {
      setFollow({ blocks: true, referenced: true });
      later(BURST_MS, () => {
        setFollow({ blocks: false, referenced: true });
        // the milestone after the burst's last block: two confirmations on (one may have been
        // issued before the burst ended), or the tail's end
        const until = (confirmedRef.current ?? 0) + 2;
        const tailEnd = Date.now() + REFERENCED_TAIL_MS;
        const tail = () => {
          if ((confirmedRef.current ?? 0) >= until || Date.now() >= tailEnd)
            setFollow({ blocks: false, referenced: false });
          else later(100, tail);
        };
        tail();
      });
      later(CYCLE_MS, burst);
    };
    burst();
    return () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
    };
  }, [sampling]);

  useEvent(follow.blocks ? Topics.blocks : undefined, (bytes) => {
    let block: ReturnType<typeof readBlock>;
    try {
      block = readBlock(bytes);
    } catch (e) {
      // the node sends blocks it took in; anything else is said once, not per message
      if (malformed.current++ === 0) console.warn(`an event on blocks is not a block: ${(e as Error).message}`);
      return;
    }
    if (model.add(block, Date.now())) schedule();
  });
  useJsonEvent<ReferencedMetadata>(follow.referenced ? Topics.blockMetadataReferenced : undefined, (meta) => {
    if (model.referenced(meta, Date.now())) schedule();
  });
  useJsonEvent<MilestoneInfoEvent>(Topics.milestoneConfirmed, (m) => {
    if (!Number.isInteger(m.index)) return;
    confirmedRef.current = m.index;
    setConfirmed(m.index);
  });
  // the rates move on when nothing arrives (the text only: the graph is redrawn for new events)
  const [, setClock] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setClock((c) => c + 1), 1000);
    return () => clearInterval(timer);
  }, []);

  // the drawn data: rebuilt at each redraw, kept as it is while paused
  const drawn = useRef(model.graphData());
  const data = useMemo(() => {
    if (!paused) drawn.current = model.graphData();
    return drawn.current;
  }, [version, paused]);

  const f = model.figures(Date.now());
  if (selectedId !== undefined) selectedLast.current = model.get(selectedId) ?? selectedLast.current;
  const selected = selectedId === undefined ? undefined : selectedLast.current;
  const select = useCallback((n: TangleNode) => {
    selectedLast.current = n;
    setSelectedId(n.id);
  }, []);
  const listed = data.nodes.slice(-LISTED).reverse();
  const summary =
    `The tangle: ${formatNumber(data.nodes.length)} recent block${data.nodes.length === 1 ? "" : "s"} drawn left to right, oldest to newest, ` +
    `${formatNumber(f.referenced)} referenced, ${formatNumber(f.conflicting)} conflicting, ` +
    `${formatNumber(f.milestones)} milestones${paused ? ", paused" : ""}.`;

  return (
    <>
      <h1>Live tangle</h1>
      <Card title="Tangle" id="tangle">
        <div class="toolbar">
          <button
            type="button"
            aria-pressed={paused}
            onClick={() => {
              seenAtPause.current = model.figures(Date.now()).seen;
              setPaused(!paused);
            }}
          >
            {paused ? "Resume" : "Pause"}
          </button>
          <output class="muted" data-paused={String(paused)}>
            {paused
              ? `Paused: the drawing stands still; ${formatNumber(f.seen - seenAtPause.current)} blocks arrived since.`
              : `Live: the last ${formatNumber(WINDOW)} blocks at most, redrawn every ${formatNumber(redraw.every / 1000, 2)} s.`}
          </output>
        </div>
        {sampling && (
          <p class="muted" data-sampling="true">
            Sampling: the node takes in {formatNumber(nodeRate ?? 0)} blocks a second, more than a drawing shows, so the
            page follows them {BURST_MS / 1000} s in every {CYCLE_MS / 1000} s (and spares its own and the node's work).
          </p>
        )}
        <figure
          class="chart-figure"
          data-drawn={data.nodes.length}
          data-blocks={f.blocks}
          data-referenced={f.referenced}
          data-conflicting={f.conflicting}
          data-milestones={f.milestones}
          data-seen={f.seen}
          data-redraw-ms={redraw.every}
          data-redraw-cost={Math.round(redraw.cost)}
        >
          <figcaption id="tangle-summary">{summary}</figcaption>
          <TangleGraph
            data={data}
            selectedId={selectedId}
            onSelect={select}
            onCost={onCost}
            label="The tangle's recent blocks as a graph; click a block to select it"
            describedBy="tangle-summary tangle-legend"
          />
          <Legend />
        </figure>
      </Card>
      <Card title="Figures" id="tangle-figures">
        <Stats
          items={[
            ["Blocks shown", formatNumber(data.nodes.length), "blocks-shown"],
            [
              "Blocks per second",
              formatNumber(sampling && info ? info.metrics.blocksPerSecond : f.blocksPerSecond, 1),
              "blocks-per-second",
            ],
            [
              "Referenced per second",
              formatNumber(sampling && info ? info.metrics.referencedBlocksPerSecond : f.referencedPerSecond, 1),
              "referenced-per-second",
            ],
            ["Pending", formatNumber(f.pending), "pending"],
            ["Referenced", formatNumber(f.referenced), "referenced"],
            ["Conflicting", formatNumber(f.conflicting), "conflicting"],
            ["Milestones", formatNumber(f.milestones), "milestones"],
            ["Confirmed milestone", confirmed === undefined ? "none yet" : formatNumber(confirmed), "confirmed"],
            [
              "Last redraw",
              `${formatNumber(redraw.cost, 0)} ms, the next after ${formatNumber(redraw.every / 1000, 2)} s at the earliest`,
              "redraw",
            ],
          ]}
        />
      </Card>
      {selected && <SelectedBlock node={selected} />}
      <Card title="Newest blocks" id="newest-blocks">
        {listed.length === 0 ? (
          <p class="muted">No block since the page opened; new ones appear here and in the graph.</p>
        ) : (
          <ol class="latest-blocks" aria-label="Newest blocks drawn, newest first">
            {listed.map((n) => (
              <li key={n.id} data-block-id={n.id} data-state={n.state}>
                <a href={blockHref(n.id)} class="mono">
                  {shortHex(n.id)}
                </a>
                <span class="state-word">{stateWords(n)}</span>
                <span class="muted">{payloadWords(n.payloadType)}</span>
                <button type="button" class="secondary" onClick={() => select(n)}>
                  Select<span class="visually-hidden"> block {shortHex(n.id)}</span>
                </button>
              </li>
            ))}
          </ol>
        )}
      </Card>
    </>
  );
}
