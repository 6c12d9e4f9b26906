import type ForceGraph from "force-graph";
import { useEffect, useRef, useState } from "preact/hooks";
import { ErrorNote, Loading } from "../components";
import type { BlockState, TangleLink, TangleNode } from "./model";
import "./tangle.css";

/**
 * The tangle drawn by force-graph (vasturiano; canvas, d3-force layout): the window's blocks as
 * nodes, an edge from each parent to the block that approves it, left to right by depth (the
 * newest blocks on the right), coloured by state. Hornet's node-dashboard draws its visualizer
 * with a force layout too (vivagraph).
 *
 * Cost, which matters: the page shares the machine with the node it shows (bench/dashboard.ts).
 * - Depth: force-graph's `dagMode("lr")` pins each node's x to its depth, but recomputes every
 *   depth at each update with a search that revisits nodes (about 100 ms for 1,000 blocks of a
 *   busy tangle); the window computes a block's depth once, when it arrives (tangle/model.ts),
 *   and it is pinned here the same way (`fx`). The d3 forces lay out the rest.
 * - Layout: a new data set gets LAYOUT_TICKS steps at once, without drawing (`warmupTicks`),
 *   and is drawn once (no animation: `cooldownTicks(0)`).
 * - Frames: force-graph's frame loop, which otherwise runs at the display's rate for ever, runs
 *   only while there is something to draw or the pointer is over the graph (its hover and
 *   click detection happen in the loop).
 * - Each update reports what it cost (the hand-over, the layout, and drawing twice: the canvas
 *   and the hit-test canvas), so the page spaces updates to spend a small share of a core
 *   (pages/Tangle.tsx).
 * The library is loaded when the page is first shown, so other pages do not carry it.
 */

/** Node fill by state; mid tones that stand out on the light and the dark surface (WCAG 1.4.11: 3:1). */
export const STATE_COLOURS: Record<BlockState, string> = {
  pending: "#7a8699",
  referenced: "#1f9d55",
  conflicting: "#d7263d",
  milestone: "#1f6fd1",
};
const LINK_COLOUR = "rgba(122, 134, 153, 0.45)";
const SELECTED_RING = "#ffbf47";

/** Horizontal distance between two depths of the DAG, in graph units (dagMode's "level distance"). */
const LEVEL_DISTANCE = 14;
/** Layout steps computed for each new data set before it is drawn. */
const LAYOUT_TICKS = 10;
/** A milestone's node is drawn larger (force-graph's node value is an area). */
const MILESTONE_VALUE = 5;
/** The view follows the newest blocks at least this zoomed in, and the whole window when it fits. */
const MIN_FOLLOW_ZOOM = 1;
const MAX_FOLLOW_ZOOM = 3;
const PAD = 20;

export interface TangleGraphProps {
  /** The drawn window (a new object to lay out and redraw). */
  data: { nodes: TangleNode[]; links: TangleLink[] };
  /** Changed to repaint the same data (states changed, not the blocks): no new layout. */
  paint?: number;
  selectedId: string | undefined;
  onSelect: (node: TangleNode) => void;
  /** Called after each update with its cost in ms (hand-over, layout, and drawing twice: the canvas and the hit-test canvas). */
  onCost?: (ms: number) => void;
  /** The canvas's accessible name, and the IDs of the texts that describe it. */
  label: string;
  describedBy: string;
}

/** A hover label built from text nodes (force-graph would write a string as HTML). */
function hoverLabel(node: TangleNode): HTMLElement {
  const el = document.createElement("span");
  const what = node.milestoneIndex !== undefined ? `milestone ${node.milestoneIndex}` : node.state;
  el.textContent = `${node.id.slice(0, 10)}…${node.id.slice(-6)}: ${what}`;
  return el;
}

export function TangleGraph({ data, paint, selectedId, onSelect, onCost, label, describedBy }: TangleGraphProps) {
  const box = useRef<HTMLDivElement>(null);
  const graph = useRef<ForceGraph<TangleNode, TangleLink> | undefined>(undefined);
  const selected = useRef(selectedId);
  selected.current = selectedId;
  const select = useRef(onSelect);
  select.current = onSelect;
  const cost = useRef(onCost);
  cost.current = onCost;
  /** Whether the pointer is over the graph (its frame loop then runs). */
  const pointerInside = useRef(false);
  /** force-graph's frame loop: started for something to draw, stopped once drawn. */
  const sleep = () => {
    if (!pointerInside.current) graph.current?.pauseAnimation();
  };
  const sleepTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const wake = () => {
    graph.current?.resumeAnimation();
    // stopped after the next drawing (below); this covers a wake-up that drew nothing
    clearTimeout(sleepTimer.current);
    sleepTimer.current = setTimeout(sleep, 2000);
  };
  /** When the last data set was handed over, and whether its cost is still to be reported. */
  const handed = useRef({ at: 0, awaitingCost: false, handOverMs: 0 });
  /** Whether the view follows the newest blocks; a zoom or pan by the user stops it until "Follow". */
  const following = useRef(true);
  const [followingShown, setFollowingShown] = useState(true);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [ready, setReady] = useState(false);

  // the view: the whole window when it fits, else the newest blocks at a readable zoom
  const follow = () => {
    const g = graph.current;
    if (!g || !following.current) return;
    // the nodes' extent; x from the pinned depth (called between layout steps, where d3's
    // centring force has shifted x until the step pins it back)
    const x = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
    const y = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
    for (const n of g.graphData().nodes) {
      const nx = n.fx ?? n.x;
      if (nx === undefined || n.y === undefined) continue;
      x[0] = Math.min(x[0]!, nx);
      x[1] = Math.max(x[1]!, nx);
      y[0] = Math.min(y[0]!, n.y);
      y[1] = Math.max(y[1]!, n.y);
    }
    if (!(x[0]! <= x[1]!)) return;
    const w = g.width();
    const h = g.height();
    const k = Math.min(
      MAX_FOLLOW_ZOOM,
      Math.max(MIN_FOLLOW_ZOOM, Math.min((w - 2 * PAD) / (x[1]! - x[0]! || 1), (h - 2 * PAD) / (y[1]! - y[0]! || 1))),
    );
    const cx = (x[1]! - x[0]!) * k > w - 2 * PAD ? x[1]! - (w / 2 - PAD) / k : (x[0]! + x[1]!) / 2;
    g.zoom(k, 0);
    g.centerAt(cx, (y[0]! + y[1]!) / 2, 0);
  };

  // built once, when force-graph has loaded
  useEffect(() => {
    const el = box.current!;
    let disposed = false;
    let resize: ResizeObserver | undefined;
    let frameStart = 0;
    let layoutStart = 0;
    let layoutEnd = 0;
    import("force-graph").then(
      ({ default: ForceGraphClass }) => {
        if (disposed) return;
        const g = new ForceGraphClass<TangleNode, TangleLink>(el)
          .width(el.clientWidth)
          .height(el.clientHeight)
          .backgroundColor("rgba(0, 0, 0, 0)")
          .nodeId("id")
          .nodeRelSize(4)
          .nodeVal((n) => (n.state === "milestone" ? MILESTONE_VALUE : 1))
          .nodeColor((n) => STATE_COLOURS[n.state])
          .nodeLabel(hoverLabel)
          .nodeCanvasObjectMode((n) => (n.id === selected.current ? "after" : undefined))
          .nodeCanvasObject((n, ctx, scale) => {
            // a ring around the selected block
            ctx.beginPath();
            ctx.arc(n.x ?? 0, n.y ?? 0, (n.state === "milestone" ? 10 : 5) + 2 / scale, 0, 2 * Math.PI);
            ctx.strokeStyle = SELECTED_RING;
            ctx.lineWidth = 2 / scale;
            ctx.stroke();
          })
          .linkColor(() => LINK_COLOUR)
          .linkWidth(1)
          .enableNodeDrag(false)
          .warmupTicks(LAYOUT_TICKS)
          .cooldownTicks(0)
          .onNodeClick((n) => select.current(n))
          .onRenderFramePre(() => {
            frameStart = performance.now();
          })
          .onRenderFramePost(() => {
            // the first drawing after an update's layout reports the update's cost
            const h = handed.current;
            if (h.awaitingCost && layoutStart >= h.at) {
              h.awaitingCost = false;
              cost.current?.(h.handOverMs + layoutEnd - layoutStart + 2 * (performance.now() - frameStart));
            }
            // drawn: the loop stops until the next data, resize or pointer (a frame later, so
            // the hit-test canvas, refreshed after this drawing, is current too)
            if (!h.awaitingCost) requestAnimationFrame(sleep);
          });
        // force-graph lays a new data set out later (its updates are debounced): a force of no
        // effect, last in the list, clocks it from its initialisation (the start of the update)
        // to the last step, after which the view follows the new positions (before they are drawn)
        let steps = 0;
        const clock = Object.assign(
          () => {
            layoutEnd = performance.now();
            if (++steps === LAYOUT_TICKS) follow();
          },
          {
            initialize: () => {
              layoutStart = performance.now();
              layoutEnd = layoutStart;
              steps = 0;
            },
          },
        );
        // a weak repulsion keeps the blocks of one depth apart, the links keep them near their parents
        // (a coarser Barnes-Hut approximation than d3's default 0.9: the picture needs no more)
        g.d3Force("charge")?.strength?.(-12)?.distanceMax?.(60)?.theta?.(1.2);
        g.d3Force("link")?.distance?.(LEVEL_DISTANCE);
        g.d3Force("clock", clock);
        graph.current = g;
        resize = new ResizeObserver(() => {
          g.width(el.clientWidth).height(el.clientHeight);
          follow();
          wake();
        });
        resize.observe(el);
        setReady(true);
      },
      (e: Error) => setFailure(`The graph library failed to load: ${e.message}`),
    );
    // a zoom or a pan by the user (wheel, drag, touch) stops following the newest blocks
    const stopFollowing = () => {
      following.current = false;
      setFollowingShown(false);
    };
    el.addEventListener("wheel", stopFollowing, { passive: true });
    // the frame loop runs while the pointer is over the graph: hovering, clicking, zooming
    el.addEventListener("pointerenter", () => {
      pointerInside.current = true;
      wake();
    });
    el.addEventListener("pointermove", () => {
      pointerInside.current = true;
      wake();
    });
    el.addEventListener("pointerleave", () => {
      pointerInside.current = false;
      // the last frames of a zoom or a tooltip hiding
      setTimeout(sleep, 500);
    });
    el.addEventListener("pointerdown", (ev) => {
      // a click on a block selects it and leaves the view alone; only a drag moves it
      const start = { x: ev.clientX, y: ev.clientY };
      const move = (m: PointerEvent) => {
        if (Math.abs(m.clientX - start.x) + Math.abs(m.clientY - start.y) > 4) {
          stopFollowing();
          el.removeEventListener("pointermove", move);
        }
      };
      el.addEventListener("pointermove", move);
      el.addEventListener("pointerup", () => el.removeEventListener("pointermove", move), { once: true });
    });
    return () => {
      disposed = true;
      clearTimeout(sleepTimer.current);
      resize?.disconnect();
      graph.current?.pauseAnimation();
      graph.current?._destructor();
      graph.current = undefined;
    };
  }, []);

  // new data: redrawn (and laid out again from where the blocks are)
  useEffect(() => {
    const g = graph.current;
    if (!g) return;
    const start = performance.now();
    for (const n of data.nodes) n.fx = n.depth * LEVEL_DISTANCE;
    // what force-graph does at once (a hit-test colour checked or given to every node and edge)
    g.graphData(data);
    handed.current = { at: start, awaitingCost: true, handOverMs: performance.now() - start };
    wake();
  }, [data, ready]);

  // the same blocks in other states: drawn again as they lie (a new data set would be laid out
  // again, LAYOUT_TICKS steps over the whole window, for a change of colours)
  const painted = useRef(data);
  useEffect(() => {
    if (painted.current !== data) {
      painted.current = data;
      return;
    }
    const g = graph.current;
    g?.nodeColor(g.nodeColor());
    wake();
  }, [paint]);

  // the selection ring
  useEffect(() => {
    const g = graph.current;
    // a style property set again asks force-graph to redraw
    g?.nodeCanvasObjectMode(g.nodeCanvasObjectMode());
    wake();
  }, [selectedId, ready]);

  return (
    <div class="tangle-graph-wrap">
      {failure && <ErrorNote message={failure} />}
      {!ready && !failure && <Loading what="the graph" />}
      <div ref={box} class="tangle-graph" role="img" aria-label={label} aria-describedby={describedBy} />
      <button
        type="button"
        class="secondary follow-button"
        disabled={followingShown}
        onClick={() => {
          following.current = true;
          setFollowingShown(true);
          follow();
          wake();
        }}
      >
        {followingShown ? "Following the newest blocks" : "Follow the newest blocks"}
      </button>
    </div>
  );
}
