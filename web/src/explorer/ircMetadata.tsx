import { useEffect, useState } from "preact/hooks";
import { ApiError, api, type Irc27Metadata, type Irc30Metadata } from "../api";
import { Card, Facts } from "../components";
import { formatNumber } from "../format";
import { useFetched } from "../hooks";
import { BASE } from "../paths";

/**
 * What the IRC metadata routes (inx-irc-metadata's, README "IRC metadata") say about NFTs
 * (IRC-27, TIP-27) and native tokens (IRC-30, TIP-30): an NFT's name, collection, description
 * and image; a token's name and symbol, and its amounts scaled by its decimals. The metadata is
 * the issuer's and hostile: it is only ever written as text (Preact escapes it), a URI becomes
 * a link only when it is http(s), and an image is only loaded from where the dashboard's
 * content-security policy lets images come from (src/api/dashboard.ts, `--dashboard-img-src`).
 */

/** Tokens whose metadata a page keeps at most (a page names a few; an address page some dozens). */
const MAX_CACHED_TOKENS = 256;

/** Most decimals a token's amounts are scaled by (a uint256 has 78 digits); more: raw amounts. */
const MAX_DECIMALS = 77;

/** A token's metadata, or undefined when it has none (404): asked once per token and page. */
const tokens = new Map<string, Promise<Irc30Metadata | undefined>>();

function tokenMetadata(tokenId: string): Promise<Irc30Metadata | undefined> {
  let known = tokens.get(tokenId);
  if (known === undefined) {
    if (tokens.size >= MAX_CACHED_TOKENS) tokens.delete(tokens.keys().next().value!);
    known = api.ircToken(tokenId).then(
      (metadata) => metadata,
      (e: unknown) => {
        // a node that could not answer now is asked again next time; a 404 is an answer
        if (!(e instanceof ApiError && e.status === 404)) tokens.delete(tokenId);
        return undefined;
      },
    );
    tokens.set(tokenId, known);
  }
  return known;
}

/** The IRC-30 metadata of `tokenId` once known; undefined while asked, without one, or without an ID. */
export function useTokenMetadata(tokenId: string | undefined): Irc30Metadata | undefined {
  const [metadata, setMetadata] = useState<{ id: string; value: Irc30Metadata | undefined } | undefined>(undefined);
  useEffect(() => {
    if (tokenId === undefined) return;
    let live = true;
    void tokenMetadata(tokenId).then((value) => {
      if (live) setMetadata({ id: tokenId, value });
    });
    return () => {
      live = false;
    };
  }, [tokenId]);
  return metadata !== undefined && metadata.id === tokenId ? metadata.value : undefined;
}

/** `amount` (a bigint) divided by 10^decimals in the user's locale, trailing zeros cut. */
export function scaledAmount(amount: bigint, decimals: number): string {
  if (decimals === 0) return formatNumber(amount);
  const scale = 10n ** BigInt(decimals);
  const fraction = (amount % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${formatNumber(amount / scale)}${fraction ? `.${fraction}` : ""}`;
}

/**
 * An amount of a native token (U256 hex, TIP-25): scaled by the token's decimals with its symbol
 * when it has IRC-30 metadata, else its base units. `data-token-units` holds the base units.
 */
export function TokenAmount({ tokenId, amount }: { tokenId: string | undefined; amount: string }) {
  const metadata = useTokenMetadata(tokenId);
  let units: bigint | undefined;
  try {
    units = BigInt(amount);
  } catch {
    units = undefined;
  }
  if (units === undefined) return <span>{amount}</span>;
  const scaled =
    metadata && Number.isInteger(metadata.decimals) && metadata.decimals >= 0 && metadata.decimals <= MAX_DECIMALS
      ? `${scaledAmount(units, metadata.decimals)} ${metadata.symbol}`
      : undefined;
  return (
    <span data-token-units={units.toString()} data-token-scaled={scaled !== undefined}>
      {scaled ?? formatNumber(units)}
    </span>
  );
}

/** The token's name from its IRC-30 metadata, as text; nothing without one. */
export function TokenName({ tokenId }: { tokenId: string }) {
  const metadata = useTokenMetadata(tokenId);
  if (!metadata || typeof metadata.name !== "string") return null;
  return <span data-token-name={tokenId}>{metadata.name} </span>;
}

/** A metadata field that must be a string (the schema says so; the page does not rely on it). */
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** `uri` when it is an http(s) URL (never `javascript:` or another scheme a link would run). */
function webUrl(uri: unknown): URL | undefined {
  if (typeof uri !== "string") return undefined;
  try {
    const url = new URL(uri);
    return url.protocol === "https:" || url.protocol === "http:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** A URI as a link when it is http(s), else as text. */
function UriLink({ uri }: { uri: string }) {
  const url = webUrl(uri);
  if (!url) return <code>{uri}</code>;
  return (
    <a href={url.href} rel="noopener noreferrer nofollow" target="_blank" data-nft-uri>
      {uri}
    </a>
  );
}

/**
 * The sources the dashboard's own CSP lets images come from (`img-src`), read from the header of
 * a dashboard answer, once per page: an image the policy refuses is not even asked for, so the
 * browser has no violation to report.
 */
let imageSources: Promise<string[]> | undefined;

function allowedImageSources(): Promise<string[]> {
  imageSources ??= fetch(`${BASE}/`, { method: "HEAD" }).then(
    (res) => {
      const policy = res.headers.get("content-security-policy") ?? "";
      const directive = policy
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .find((d) => d[0] === "img-src");
      return directive?.slice(1) ?? [];
    },
    () => [],
  );
  return imageSources;
}

/** Whether CSP source list `sources` lets an image load from `url` (CSP Level 3 source matching, as far as used). */
export function imageAllowed(url: URL, sources: readonly string[]): boolean {
  return sources.some((s) => {
    if (s === "'self'") return url.origin === window.location.origin;
    if (s === "*") return url.protocol === "https:" || url.protocol === "http:";
    if (/^[a-z][a-z0-9+.-]*:$/.test(s)) return url.protocol === s;
    try {
      return new URL(s).origin === url.origin;
    } catch {
      return false;
    }
  });
}

/** `uri` as an image's source: an http(s) URL, or a `data:image/…` URL (which the CSP allows). */
function imageUrl(uri: unknown): URL | undefined {
  if (typeof uri === "string" && uri.startsWith("data:image/")) {
    try {
      return new URL(uri);
    } catch {
      return undefined;
    }
  }
  return webUrl(uri);
}

/** The NFT's image (IRC-27 `uri` of an `image/*` type), when the CSP lets it load; else nothing. */
function NftImage({ metadata }: { metadata: Irc27Metadata }) {
  const url =
    typeof metadata.type === "string" && metadata.type.startsWith("image/") ? imageUrl(metadata.uri) : undefined;
  const sources = useFetched(async () => (url ? allowedImageSources() : []), [url?.href]);
  if (!url || !sources.data || !imageAllowed(url, sources.data)) return null;
  return <img class="nft-image" src={url.href} alt={text(metadata.name) ?? "the NFT's image"} data-nft-image />;
}

/** The NFT's IRC-27 metadata in words; when it has none, why (the route's reason). */
export function NftMetadataCard({ nftId }: { nftId: string }) {
  const metadata = useFetched((signal) => api.ircNft(nftId, { signal }), [nftId]);
  return (
    <Card title="Metadata (IRC-27)" id="nft-metadata">
      {metadata.errorStatus === 404 && (
        <p class="muted" data-irc-missing>
          No IRC-27 metadata: {metadata.error}
        </p>
      )}
      {metadata.error && metadata.errorStatus !== 404 && <p class="error">{metadata.error}</p>}
      {metadata.data && (
        <>
          <Facts
            items={[
              ["Name", <span key="n">{text(metadata.data.name)}</span>, "nft-name"],
              text(metadata.data.collectionName) !== undefined && [
                "Collection",
                metadata.data.collectionName,
                "nft-collection",
              ],
              text(metadata.data.issuerName) !== undefined && ["Issuer", metadata.data.issuerName, "nft-issuer"],
              text(metadata.data.description) !== undefined && [
                "Description",
                metadata.data.description,
                "nft-description",
              ],
              ["Type", text(metadata.data.type), "nft-type"],
              ["URI", <UriLink key="u" uri={String(metadata.data.uri)} />, "nft-uri"],
            ]}
          />
          <NftImage metadata={metadata.data} />
        </>
      )}
    </Card>
  );
}

/** The token's IRC-30 metadata in words; when it has none, why. */
export function TokenMetadataCard({ tokenId }: { tokenId: string }) {
  const metadata = useFetched((signal) => api.ircToken(tokenId, { signal }), [tokenId]);
  return (
    <Card title="Token metadata (IRC-30)" id="token-metadata">
      {metadata.errorStatus === 404 && (
        <p class="muted" data-irc-missing>
          No IRC-30 metadata: {metadata.error}
        </p>
      )}
      {metadata.error && metadata.errorStatus !== 404 && <p class="error">{metadata.error}</p>}
      {metadata.data && (
        <Facts
          items={[
            ["Name", text(metadata.data.name), "token-name"],
            ["Symbol", text(metadata.data.symbol), "token-symbol"],
            ["Decimals", String(metadata.data.decimals), "token-decimals"],
            text(metadata.data.description) !== undefined && [
              "Description",
              metadata.data.description,
              "token-description",
            ],
            text(metadata.data.url) !== undefined && [
              "Web site",
              <UriLink key="u" uri={String(metadata.data.url)} />,
              "token-url",
            ],
          ]}
        />
      )}
    </Card>
  );
}
