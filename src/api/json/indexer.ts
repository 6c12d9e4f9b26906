/**
 * The indexer's answers (routes/indexer.ts, inx-indexer's `IndexerResponse`). Types only, for
 * the routes and the dashboard (web/).
 */

/** A listing of unspent outputs (`GET /api/indexer/v1/outputs[/{kind}]`), paged by cursor. */
export interface IndexerListingJson {
  /** The confirmed milestone the items were read at. */
  ledgerIndex: number;
  pageSize: number;
  /** The cursor of the next page; left out on the last. */
  cursor?: string;
  /** Output IDs, oldest first. */
  items: string[];
}

/** The current output of an alias, NFT or foundry (`GET /api/indexer/v1/outputs/{kind}/{id}`). */
export interface IndexerLookupJson {
  ledgerIndex: number;
  /** The ID of its current unspent output. */
  items: string[];
}
