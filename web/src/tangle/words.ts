import { formatNumber } from "../format";
import { href } from "../paths";
import type { TangleNode } from "./model";

/** A block's state in words: its milestone's index for a milestone's block. */
export const stateWords = (n: TangleNode): string =>
  n.milestoneIndex !== undefined ? `milestone ${formatNumber(n.milestoneIndex)}` : n.state;

/** The explorer's page of a block. */
export const blockHref = (id: string): string => href(`/explorer/block/${id}`);
