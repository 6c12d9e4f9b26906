import { href } from "../paths";

/**
 * Where the explorer's pages are: each has a real URL, `/dashboard/explorer/<kind>/<id>`. Shared
 * by the pages' links (parts.tsx) and the search (search.tsx, resolve.ts), which imports none of
 * the parts.
 */

/** The explorer's page kinds, as they appear in its URLs. */
export type EntityKind =
  | "block"
  | "transaction"
  | "output"
  | "milestone"
  | "address"
  | "alias"
  | "nft"
  | "foundry"
  | "tag";

/** The URL of an explorer page. */
export const explorerHref = (kind: EntityKind, id: string | number): string =>
  href(`/explorer/${kind}/${encodeURIComponent(String(id))}`);
