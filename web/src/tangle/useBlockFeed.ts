import { useRef } from "preact/hooks";
import { Topic } from "../events";
import type { BlockSummary } from "../explorer/codec";
import { loadCodec } from "../explorer/codecLoader";
import { type FetchState, useEvent, useFetched, useJsonEvent } from "../hooks";
import type { ReferencedMetadata, TangleWindow } from "./model";
import type { Sampling } from "./useSampling";

/**
 * The window's blocks from the event API: `blocks` (each block's bytes, read with the app's codec,
 * explorer/codec.ts, loaded first: its ID is hashed from them) as `sampler` lets them in, and
 * `block-metadata/referenced` while every block is followed. A change of the window `schedule`s a
 * redraw. Returns the codec's load, for the page to say when it failed.
 */
export function useBlockFeed(
  model: TangleWindow,
  sampler: Sampling,
  schedule: () => void,
): FetchState<typeof import("../explorer/codec")> {
  const codec = useFetched(() => loadCodec(), []);
  const malformed = useRef(0);
  const summarize = codec.data?.summarizeBlock;
  useEvent(summarize && sampler.followBlocks ? Topic.Blocks : undefined, (bytes) =>
    sampler.take(() => {
      if (!summarize) return undefined;
      let block: BlockSummary;
      try {
        block = summarize(bytes);
      } catch (e) {
        // the node sends blocks it took in; anything else is said once, not per message
        if (malformed.current++ === 0) console.warn(`an event on blocks is not a block: ${(e as Error).message}`);
        return undefined;
      }
      return model.add(block, Date.now());
    }),
  );
  useJsonEvent<ReferencedMetadata>(sampler.sampling ? undefined : Topic.BlockMetadataReferenced, (meta) => {
    if (model.referenced(meta, Date.now())) schedule();
  });
  return codec;
}
