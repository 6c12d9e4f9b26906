/**
 * The IRC metadata routes' answers (routes/ircMetadata.ts, inx-irc-metadata): the metadata JSON
 * an NFT or a native token's foundry carries, valid under its TIP's schema. Types only, for the
 * routes and the dashboard (web/). Any other property the issuer wrote is kept.
 */

/** IRC-27 NFT metadata (TIP-27): `GET /api/irc-metadata/v1/nfts/{nftId}`. */
export interface Irc27MetadataJson {
  standard: "IRC27";
  /** `v<major>.<minor>`, "v1.0" today. */
  version: string;
  /** MIME type of the asset `uri` points to. */
  type: string;
  uri: string;
  name: string;
  collectionName?: string;
  /** Payout addresses (bech32) mapped to their share (0.05 = 5%). */
  royalties?: Record<string, unknown>;
  issuerName?: string;
  description?: string;
  attributes?: unknown[];
  [more: string]: unknown;
}

/** IRC-30 native token metadata (TIP-30): `GET /api/irc-metadata/v1/tokens/{tokenId}`. */
export interface Irc30MetadataJson {
  standard: "IRC30";
  name: string;
  symbol: string;
  /** An amount divided by 10^decimals is what a user is shown. */
  decimals: number;
  description?: string;
  url?: string;
  logoUrl?: string;
  logo?: string;
  [more: string]: unknown;
}
