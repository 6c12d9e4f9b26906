import { formatNumber } from "../format";
import { BURST_BLOCKS, BURST_MS } from "./useSampling";
import { WATCHED } from "./useWatchedBlocks";

/** What the page does while it samples, in words; `rate` is blocks a second, `cycleMs` the time between bursts. */
export function SamplingNote({ rate, cycleMs }: { rate: number; cycleMs: number }) {
  return (
    <p class="muted" data-sampling="true" data-cycle-ms={cycleMs}>
      Sampling: the node takes in {formatNumber(rate)} blocks a second, more than a drawing shows, so the page follows
      them for {BURST_MS / 1000} s or {formatNumber(BURST_BLOCKS)} blocks, whichever comes first, every {cycleMs / 1000}{" "}
      s, and draws the last of these (and spares its own and the node's work). Whether they are referenced it asks of{" "}
      {WATCHED} sampled blocks at a time, transactions first: a referenced block's ancestors are referenced too, but
      only a transaction's own answer can mark it conflicting.
    </p>
  );
}
