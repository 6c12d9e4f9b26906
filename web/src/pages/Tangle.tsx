import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Card, Stats } from "../components";
import { blockMetadataTopic, events, type MilestoneInfoEvent, Topic } from "../events";
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
 * replaces the last one in the window and is laid out and drawn once, when it ends. Meanwhile it leaves `block-metadata/referenced` (every
 * referenced block's metadata: as many messages as `blocks` itself) and asks
 * `block-metadata/{id}` of a few sampled blocks instead (WATCHED at once, newest first): a
 * referenced block marks its past cone in the window referenced too (TIP-2: a milestone
 * references the whole past cone of its parents), and transactions are asked first, as only
 * their own metadata can say conflicting. The page says so, and its rates are then the node's.
 *
 * Pause freezes the drawing (the window and the counters go on), so a block can be picked; a
 * click on a block selects it, and its explorer page is one link away. Everything the canvas
 * shows is also in words: the counts, a legend, the newest blocks as links, the selected block.
 */

/** Blocks kept and drawn at most. */
const WINDOW = 1000;
/** Shortest time between two redraws of the graph and the counts, in ms. */
const REDRAW_MS = 250;
/** Share of one core the graph's redraws may take: after a redraw that cost c ms, the next waits c / DRAW_SHARE ms. */
const DRAW_SHARE = 0.04;
/** Blocks a second (as they arrive) above which the page samples, and below which (in a burst) it stops again. */
const SAMPLE_ABOVE = 250;
const SAMPLE_BELOW = 150;
/** When sampling: a burst of blocks every CYCLE_MS, lasting BURST_MS or BURST_BLOCKS blocks, whichever is first. */
const BURST_MS = 1000;
const BURST_BLOCKS = 500;
const CYCLE_MS = 5000;
/** Blocks a second (the node's figure or the last burst's) above which bursts are FAST_CYCLE_MS apart. */
const FAST_ABOVE = 2000;
const FAST_CYCLE_MS = 10_000;
/** When sampling: `block-metadata/{id}` subscriptions at once, and how long one waits for its block to be referenced. */
const WATCHED = 16;
const WATCH_MS = 30_000;
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
            node.referencedBy === undefined
              ? "not yet"
              : node.referencedAtLatest
                ? `${formatNumber(node.referencedBy)} or an earlier one (seen through a block that approves it)`
                : formatNumber(node.referencedBy),
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
        // a burst running (or about to, the page just saw it is one): drawn once it ends
        if (burst.current !== undefined || trigger.current !== undefined) return;
        lastRedraw.current = performance.now();
        setVersion((v) => v + 1);
      });
    }, wait);
  }, []);

  // sampling under heavy traffic: which topics are followed now
  const { data: info } = useNodeInfo();
  const nodeRate = info?.metrics.blocksPerSecond;
  const [sampling, setSampling] = useState(false);
  /** Blocks a second as the page last saw them arrive (a second of following, or the last burst). */
  const seenRate = useRef(0);
  /**
   * While every block is followed, the times of the last SAMPLE_ABOVE arrivals (a ring): when they
   * span less than a second, the page samples (its own trigger, before the info route says so),
   * and they make the first burst.
   */
  const arrivals = useRef({ times: new Float64Array(SAMPLE_ABOVE), next: 0, filled: false });
  const trigger = useRef<{ at: number; count: number } | undefined>(undefined);
  const rate = Math.max(nodeRate ?? 0, seenRate.current);
  const [followBlocks, setFollowBlocks] = useState(true);
  /** The running burst: when it began, the blocks it brought, its end (undefined between bursts). */
  const burst = useRef<{ at: number; count: number; from: number; counted: number; end: () => void } | undefined>(
    undefined,
  );
  const [cycleMs, setCycleMs] = useState(CYCLE_MS);
  useEffect(() => {
    if (!sampling) {
      setFollowBlocks(true);
      return;
    }
    let stopped = false;
    let endTimer: ReturnType<typeof setTimeout> | undefined;
    let nextTimer: ReturnType<typeof setTimeout> | undefined;
    const begin = (carried?: { at: number; count: number }) => {
      if (stopped) return;
      const b = {
        ...(carried ?? { at: performance.now(), count: 0 }),
        // the rate is measured from the burst's own start (a carried one began at a slower pace)
        from: performance.now(),
        counted: 0,
        end: () => {
          if (burst.current !== b) return;
          burst.current = undefined;
          clearTimeout(endTimer);
          const now = performance.now();
          seenRate.current =
            b.counted >= 50
              ? (b.counted * 1000) / Math.max(1, now - b.from)
              : (b.count * 1000) / Math.max(1, now - b.at);
          setFollowBlocks(false);
          // the burst's blocks drawn at once, laid out once
          schedule();
          // traffic that calmed down: every block followed again
          if (seenRate.current < SAMPLE_BELOW) {
            setSampling(false);
            return;
          }
          // the next burst a cycle after this one began, the cycle by the rate this one saw
          const cycle = seenRate.current > FAST_ABOVE ? FAST_CYCLE_MS : CYCLE_MS;
          setCycleMs(cycle);
          nextTimer = setTimeout(() => begin(), Math.max(0, b.at + cycle - now));
        },
      };
      // a new burst replaces the last one in the window (the first keeps the blocks before it)
      if (carried === undefined) model.clear();
      burst.current = b;
      setFollowBlocks(true);
      endTimer = setTimeout(b.end, Math.max(0, BURST_MS - (performance.now() - b.at)));
    };
    // the first burst: the arrivals that made the page sample, if they did
    begin(trigger.current);
    trigger.current = undefined;
    return () => {
      stopped = true;
      burst.current = undefined;
      clearTimeout(endTimer);
      clearTimeout(nextTimer);
    };
  }, [sampling]);

  useEvent(followBlocks ? Topic.Blocks : undefined, (bytes) => {
    const b = burst.current;
    // what arrives after a burst's end, before the node has the unsubscription, is dropped unread
    if (sampling && b === undefined) return;
    let block: ReturnType<typeof readBlock>;
    try {
      block = readBlock(bytes);
    } catch (e) {
      // the node sends blocks it took in; anything else is said once, not per message
      if (malformed.current++ === 0) console.warn(`an event on blocks is not a block: ${(e as Error).message}`);
      return;
    }
    // a burst is drawn when it ends (one layout of its blocks rather than one per redraw slot)
    if (model.add(block, Date.now()) && b === undefined) schedule();
    if (b !== undefined) {
      b.counted++;
      if (++b.count >= BURST_BLOCKS) b.end();
    } else if (!sampling) {
      const now = performance.now();
      const a = arrivals.current;
      const oldest = a.times[a.next]!;
      a.times[a.next] = now;
      a.next = (a.next + 1) % SAMPLE_ABOVE;
      if (a.next === 0) a.filled = true;
      if (a.filled && now - oldest < 1000 && trigger.current === undefined) {
        seenRate.current = (SAMPLE_ABOVE * 1000) / Math.max(1, now - oldest);
        trigger.current = { at: oldest, count: SAMPLE_ABOVE };
        setSampling(true);
      }
    }
  });
  useJsonEvent<ReferencedMetadata>(sampling ? undefined : Topic.BlockMetadataReferenced, (meta) => {
    if (model.referenced(meta, Date.now())) schedule();
  });

  // when sampling: a few sampled blocks' own metadata, asked between bursts (refs and plain
  // calls, not state: an answer must not cost a rendering of the page)
  const watched = useRef(new Map<string, { until: number; off: () => void }>());
  const givenUp = useRef(new Set<string>());
  /** Asked blocks found referenced (each marked its cone), since the page opened. */
  const answered = useRef(0);
  const samplingNow = useRef(sampling);
  samplingNow.current = sampling;
  const unwatch = useCallback((id: string) => {
    watched.current.get(id)?.off();
    watched.current.delete(id);
  }, []);
  const rewatchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const rewatch = useCallback(() => {
    const w = watched.current;
    if (!samplingNow.current) {
      for (const id of [...w.keys()]) unwatch(id);
      givenUp.current.clear();
      return;
    }
    // the blocks of a running burst are new: asked once it ended
    if (burst.current !== undefined || !alive.current) return;
    const now = Date.now();
    for (const [id, entry] of [...w]) {
      if (!model.get(id)) unwatch(id);
      else if (now > entry.until) {
        unwatch(id);
        givenUp.current.add(id);
      }
    }
    // the given-up set holds window blocks only
    for (const id of givenUp.current) if (!model.get(id)) givenUp.current.delete(id);
    for (const id of model.worthAsking(WATCHED - w.size, (id) => w.has(id) || givenUp.current.has(id))) {
      const off = events.subscribeJson<ReferencedMetadata>(blockMetadataTopic(id), (meta) => {
        // the answer at subscription may be of a block not referenced yet: it is waited for
        if (typeof meta.referencedByMilestoneIndex !== "number") return;
        model.referenced(meta, Date.now());
        model.referencedCone(id, meta.referencedByMilestoneIndex);
        answered.current++;
        unwatch(id);
        schedule();
        // the answers of one milestone come together: one new round for them
        if (rewatchTimer.current === undefined)
          rewatchTimer.current = setTimeout(() => {
            rewatchTimer.current = undefined;
            rewatch();
          }, 50);
      });
      w.set(id, { until: now + WATCH_MS, off });
    }
  }, []);
  useEffect(rewatch, [sampling, followBlocks, confirmed]);
  useEffect(
    () => () => {
      clearTimeout(rewatchTimer.current);
      for (const id of [...watched.current.keys()]) unwatch(id);
    },
    [],
  );
  useJsonEvent<MilestoneInfoEvent>(Topic.MilestoneInfoConfirmed, (m) => {
    if (!Number.isInteger(m.index)) return;
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
          <p class="muted" data-sampling="true" data-cycle-ms={cycleMs}>
            Sampling: the node takes in {formatNumber(rate)} blocks a second, more than a drawing shows, so the page
            follows them for {BURST_MS / 1000} s or {formatNumber(BURST_BLOCKS)} blocks, whichever comes first, every{" "}
            {cycleMs / 1000} s, and draws the last of these (and spares its own and the node's work). Whether they are
            referenced it asks of {WATCHED} sampled blocks at a time, transactions first: a referenced block's ancestors
            are referenced too, but only a transaction's own answer can mark it conflicting.
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
          data-sampling={String(sampling)}
          data-asked-referenced={answered.current}
          data-redraw-ms={redraw.every}
          data-redraw-cost={Math.round(redraw.cost)}
        >
          <figcaption id="tangle-summary">{summary}</figcaption>
          <TangleGraph
            data={data}
            paint={paused ? undefined : version}
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
