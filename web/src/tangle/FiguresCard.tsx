import type { NodeInfo } from "../api";
import { Card, Stats } from "../components";
import { formatNumber } from "../format";
import type { TangleFigures } from "./model";
import type { RedrawTiming } from "./useRedraw";

/**
 * The tangle's counts in words. While the page samples, the rates are the node's (the info
 * route's), since the page no longer sees every block.
 */
export function FiguresCard({
  figures: f,
  drawn,
  sampling,
  info,
  confirmed,
  redraw,
}: {
  figures: TangleFigures;
  /** Blocks in the drawing. */
  drawn: number;
  sampling: boolean;
  info: NodeInfo | undefined;
  /** The last confirmed milestone the event API announced. */
  confirmed: number | undefined;
  redraw: RedrawTiming;
}) {
  return (
    <Card title="Figures" id="tangle-figures">
      <Stats
        items={[
          ["Blocks shown", formatNumber(drawn), "blocks-shown"],
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
  );
}
