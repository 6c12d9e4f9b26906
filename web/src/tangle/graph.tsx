import type ForceGraph from "force-graph";
import { useEffect, useRef, useState } from "preact/hooks";
import { ErrorNote, Loading } from "../components";
import type { BlockState, TangleLink, TangleNode } from "./model";
import "./tangle.css";

/**
 * The tangle drawn by force-graph (vasturiano; canvas, d3-force layout): the window's blocks as
 * nodes, an edge from each parent to the block that approves it, laid out left to right by
 * depth (`dagMode("lr")`, so the newest blocks are on the right), coloured by state. Hornet's
 * node-dashboard draws its visualizer with a force layout too (vivagraph).
 *
 * Cost: every new data set re-heats the layout, which then runs `COOLDOWN_TICKS` frames and
 * stops; the page hands over new data at most a few times a second (pages/Tangle.tsx), and
 * force-graph redraws nothing while its layout rests and no pointer moves (`autoPauseRedraw`).
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

/** Horizontal distance between two depths of the DAG, in graph units. */
const LEVEL_DISTANCE = 14;
/** Layout frames after each new data set. */
const COOLDOWN_TICKS = 30;
/** A milestone's node is drawn larger (force-graph's node value is an area). */
const MILESTONE_VALUE = 5;
/** The view follows the newest blocks at least this zoomed in, and the whole window when it fits. */
const MIN_FOLLOW_ZOOM = 0.6;
const MAX_FOLLOW_ZOOM = 3;
/** How often the view follows the layout while it moves, in ms. */
const FOLLOW_MS = 250;
const PAD = 20;

export interface TangleGraphProps {
  /** The drawn window (a new object to redraw). */
  data: { nodes: TangleNode[]; links: TangleLink[] };
  selectedId: string | undefined;
  onSelect: (node: TangleNode) => void;
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

export function TangleGraph({ data, selectedId, onSelect, label, describedBy }: TangleGraphProps) {
  const box = useRef<HTMLDivElement>(null);
  const graph = useRef<ForceGraph<TangleNode, TangleLink> | undefined>(undefined);
  const selected = useRef(selectedId);
  selected.current = selectedId;
  const select = useRef(onSelect);
  select.current = onSelect;
  /** Whether the view follows the newest blocks; a zoom or pan by the user stops it until "Follow". */
  const following = useRef(true);
  const [followingShown, setFollowingShown] = useState(true);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [ready, setReady] = useState(false);

  // the view: the whole window when it fits, else the newest blocks at a readable zoom
  const follow = () => {
    const g = graph.current;
    if (!g || !following.current || g.graphData().nodes.length === 0) return;
    const { x, y } = g.getGraphBbox();
    const w = g.width();
    const h = g.height();
    const k = Math.min(
      MAX_FOLLOW_ZOOM,
      Math.max(MIN_FOLLOW_ZOOM, Math.min((w - 2 * PAD) / (x[1] - x[0] || 1), (h - 2 * PAD) / (y[1] - y[0] || 1))),
    );
    const cx = (x[1] - x[0]) * k > w - 2 * PAD ? x[1] - (w / 2 - PAD) / k : (x[0] + x[1]) / 2;
    g.zoom(k, 0);
    g.centerAt(cx, (y[0] + y[1]) / 2, 0);
  };

  // built once, when force-graph has loaded
  useEffect(() => {
    const el = box.current!;
    let disposed = false;
    let resize: ResizeObserver | undefined;
    let lastFollow = 0;
    import("force-graph").then(
      ({ default: ForceGraphClass }) => {
        if (disposed) return;
        const g = new ForceGraphClass<TangleNode, TangleLink>(el)
          .width(el.clientWidth)
          .height(el.clientHeight)
          .backgroundColor("rgba(0, 0, 0, 0)")
          .nodeId("id")
          .dagMode("lr")
          .dagLevelDistance(LEVEL_DISTANCE)
          .nodeRelSize(3)
          .nodeVal((n) => (n.state === "milestone" ? MILESTONE_VALUE : 1))
          .nodeColor((n) => STATE_COLOURS[n.state])
          .nodeLabel(hoverLabel)
          .nodeCanvasObjectMode((n) => (n.id === selected.current ? "after" : undefined))
          .nodeCanvasObject((n, ctx, scale) => {
            // a ring around the selected block
            ctx.beginPath();
            ctx.arc(n.x ?? 0, n.y ?? 0, (n.state === "milestone" ? 9 : 5) + 2 / scale, 0, 2 * Math.PI);
            ctx.strokeStyle = SELECTED_RING;
            ctx.lineWidth = 2 / scale;
            ctx.stroke();
          })
          .linkColor(() => LINK_COLOUR)
          .linkWidth(1)
          .enableNodeDrag(false)
          .cooldownTicks(COOLDOWN_TICKS)
          .onNodeClick((n) => select.current(n))
          .onEngineTick(() => {
            const now = performance.now();
            if (now - lastFollow >= FOLLOW_MS) {
              lastFollow = now;
              follow();
            }
          })
          .onEngineStop(follow);
        // a weak repulsion keeps the blocks of one depth apart, the links keep them near their parents
        g.d3Force("charge")?.strength?.(-12)?.distanceMax?.(80);
        g.d3Force("link")?.distance?.(LEVEL_DISTANCE);
        graph.current = g;
        resize = new ResizeObserver(() => {
          g.width(el.clientWidth).height(el.clientHeight);
          follow();
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
      resize?.disconnect();
      graph.current?.pauseAnimation();
      graph.current?._destructor();
      graph.current = undefined;
    };
  }, []);

  // new data: redrawn (and laid out again from where the blocks are)
  useEffect(() => {
    graph.current?.graphData(data);
  }, [data, ready]);

  // the selection ring
  useEffect(() => {
    const g = graph.current;
    // a style property set again asks force-graph to redraw
    g?.nodeCanvasObjectMode(g.nodeCanvasObjectMode());
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
        }}
      >
        {followingShown ? "Following the newest blocks" : "Follow the newest blocks"}
      </button>
    </div>
  );
}
