import type {
  BlockMetadataJson,
  InfoJson,
  OutputJsonResponse,
  OutputMetadataJson,
  TreasuryJson,
  UtxoChangesJson,
} from "../../src/api/json/core";
import type { DashboardNodeJson } from "../../src/api/json/dashboard";
import type { DevTimeJson } from "../../src/api/json/dev";
import type {
  AddressUpdates,
  BalanceAnswer,
  ChildrenPage,
  MilestoneBlocksPage,
  MilestonesPage,
} from "../../src/api/json/explorer";
import type { FaucetEnqueued, FaucetInfo as FaucetInfoJson } from "../../src/api/json/faucet";
import type { IndexerListingJson, IndexerLookupJson } from "../../src/api/json/indexer";
import type { Irc27MetadataJson, Irc30MetadataJson } from "../../src/api/json/ircMetadata";
import { MIME_SERIALIZER } from "../../src/api/json/mediaTypes";
import type { GossipMetrics, PeerJson } from "../../src/api/json/peers";
import type { PoiValidJson } from "../../src/api/json/poi";
import type { SpammerStartJson, SpammerStatusJson } from "../../src/api/json/spammer";

/**
 * Typed calls of the node's public REST routes, from the page's own origin (the dashboard is
 * served by the node it shows). Every failure becomes an `ApiError` whose message says in words
 * what went wrong: the node's own `error.details` when it sent one (README, HTTP API: errors are
 * `{"error": {"code", "message", "details"}}`), else what the status means.
 */

/** The node's error body (docs/decisions.md, Errors and access). */
interface ErrorBody {
  error?: { code?: number; message?: string; details?: string };
}

/** A failed call: `status` 0 when the node could not be reached at all. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly path: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** What a status means when the node gave no reason. */
function statusWords(status: number): string {
  switch (status) {
    case 400:
      return "the request was refused as invalid";
    case 403:
      return "this needs a valid JWT (the route is protected)";
    case 404:
      return "not found";
    case 429:
      return "too many requests; try again later";
    case 503:
      return "the node cannot serve this now";
    default:
      return status >= 500 ? "the node failed to answer" : `unexpected answer (HTTP ${status})`;
  }
}

/** A failure of any kind as one sentence for the page. */
export function messageOf(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof DOMException && e.name === "AbortError") return "the request was cancelled";
  if (e instanceof Error) return e.message;
  return String(e);
}

/** Options of one call. */
export interface CallOptions {
  /** A JWT for a protected route (README, HTTP API). */
  token?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** Longest a call may take before it is given up, in ms. */
const CALL_TIMEOUT_MS = 15_000;

/** One call: the answer when its status is 2xx, else the failure as an `ApiError` in words. */
async function send(
  method: string,
  path: string,
  body: unknown,
  options: CallOptions,
  accept = "application/json",
): Promise<Response> {
  const headers: Record<string, string> = { accept };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      signal,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (e) {
    if (options.signal?.aborted) throw e;
    const why = timeout.aborted ? `no answer within ${CALL_TIMEOUT_MS / 1000} s` : messageOf(e);
    throw new ApiError(`The node cannot be reached (${why}).`, 0, path);
  }
  if (!res.ok) {
    const text = await res.text();
    let details: string | undefined;
    try {
      details = (JSON.parse(text) as ErrorBody).error?.details;
    } catch {
      // not the node's error shape (a proxy's page): the status says enough
    }
    const reason = details ? `${details}` : statusWords(res.status);
    throw new ApiError(`${reason.charAt(0).toUpperCase()}${reason.slice(1)} (HTTP ${res.status}).`, res.status, path);
  }
  return res;
}

async function call<T>(method: string, path: string, body: unknown, options: CallOptions): Promise<T> {
  const res = await send(method, path, body, options);
  const text = await res.text();
  if (text === "") return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(`The node's answer to ${path} is not JSON.`, res.status, path);
  }
}

export const getJson = <T>(path: string, options: CallOptions = {}) => call<T>("GET", path, undefined, options);
export const postJson = <T>(path: string, body: unknown, options: CallOptions = {}) =>
  call<T>("POST", path, body, options);
export const deleteCall = (path: string, options: CallOptions = {}) => call<void>("DELETE", path, undefined, options);

/** The binary form of a block or an output (`Accept: application/vnd.iota.serializer-v1`). */
export async function getBytes(path: string, options: CallOptions = {}): Promise<Uint8Array> {
  const res = await send("GET", path, undefined, options, MIME_SERIALIZER);
  return new Uint8Array(await res.arrayBuffer());
}

/** A path segment or query value as it must appear in a URL. */
const seg = encodeURIComponent;

/** A query string from defined values, with its `?`, or "". */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

// ---- the answers' shapes (TIP-25, inx-indexer, Chronicle), as far as the pages read them ----
// The answers the node declares in src/api/json/ are its types, imported as types only (nothing
// of them reaches the bundle); what the node leaves open (the TIP JSON of blocks, outputs and
// milestones, which its codec writes) is declared here as far as the pages read it.

/**
 * `GET /api/core/v2/info`, with the protocol parameters the pages read typed: the node sends them
 * as the network configures them (TIP-25 `ProtocolParameters`), so its own type leaves them open.
 */
export type NodeInfo = Omit<InfoJson, "protocol"> & {
  protocol: InfoJson["protocol"] & { networkName: string; bech32Hrp: string };
};

/** `GET /api/dashboard/v1/node`: what the info route does not say about the process. */
export type NodeStatus = DashboardNodeJson;

/** A block in TIP-24 JSON (payload left open). */
export interface BlockJson {
  protocolVersion: number;
  parents: string[];
  payload?: { type: number; [key: string]: unknown };
  nonce: string;
}

/** `GET /api/core/v2/blocks/{blockId}/metadata`. */
export type BlockMetadata = BlockMetadataJson;

/** `GET /api/core/v2/milestones/by-index/{index}/utxo-changes`. */
export type UtxoChanges = UtxoChangesJson;

/** `GET /api/core/v2/outputs/{outputId}/metadata`. */
export type OutputMetadata = OutputMetadataJson;

/** An output in TIP-18 JSON (fields left open). */
export interface OutputJson {
  type: number;
  amount: string;
  [key: string]: unknown;
}

/** `GET /api/core/v2/outputs/{outputId}`, its output read as the pages read outputs (fields left open). */
export interface OutputWithMetadata extends Omit<OutputJsonResponse, "output"> {
  output: OutputJson;
}

/** A milestone payload in TIP-29 JSON. */
export interface MilestonePayload {
  type: 7;
  index: number;
  timestamp: number;
  protocolVersion: number;
  previousMilestoneId: string;
  parents: string[];
  inclusionMerkleRoot: string;
  appliedMerkleRoot: string;
  [key: string]: unknown;
}

/** A node of the output ID proof tree (TIP-45): 0 inner node, 1 hash of a sibling subtree, 2 the output's own leaf hash. */
export type ProofNodeJson = { type: 0; l: ProofNodeJson; r: ProofNodeJson } | { type: 1 | 2; hash: string };

/** A node of a proof of inclusion's audit path (inx-poi, iota.go merklehasher). */
export type PoiProofNodeJson = { l: PoiProofNodeJson; r: PoiProofNodeJson } | { h: string } | { value: string };

/** `GET /api/poi/v1/create/{blockId}`: the block, the milestone that referenced it, the path between them. */
export interface InclusionProofJson {
  milestone: MilestonePayload;
  block: BlockJson;
  proof: PoiProofNodeJson;
}

/** Where an output was included or spent, in the v3 read's terms (slot = milestone index). */
export interface LedgerEventJson {
  slot: number;
  transactionId: string;
  commitmentId?: string;
}

/** `GET /api/core/v3/outputs/{outputId}/full` (docs/decisions.md, The v3 full-output read). */
export interface OutputFull {
  output: OutputJson & { mana: string };
  outputIdProof: {
    slot: number;
    outputIndex: number;
    transactionCommitment: string;
    outputCommitmentProof: ProofNodeJson;
  };
  metadata: {
    outputId: string;
    blockId: string;
    included: LedgerEventJson;
    spent?: LedgerEventJson;
    latestCommitmentId: string;
  };
}

/** A peer as `GET /api/core/v2/peers` lists it (iota.js `IPeer` plus score and ban). */
export type Peer = PeerJson;
export type { GossipMetrics };

/** A page of an inx-indexer listing: output IDs, paged by cursor. */
export type IndexerPage = IndexerListingJson;

/** `GET /api/faucet/v1/info` (inx-faucet): the node writes its bigint balance as a JSON integer. */
export type FaucetInfo = Omit<FaucetInfoJson, "balance"> & { balance: number };

export type { FaucetEnqueued };

/** `GET /api/irc-metadata/v1/nfts/{nftId}` (inx-irc-metadata): an NFT's IRC-27 metadata (TIP-27). */
export type Irc27Metadata = Irc27MetadataJson;

/** `GET /api/irc-metadata/v1/tokens/{tokenId}` (inx-irc-metadata): a native token's IRC-30 metadata (TIP-30). */
export type Irc30Metadata = Irc30MetadataJson;

/** `GET /api/core/v2/treasury` (TIP-25): the treasury output's milestone and tokens (decimal). */
export type Treasury = TreasuryJson;

// ---- the routes ----

const CORE = "/api/core/v2";
const INDEXER = "/api/indexer/v1";
const EXPLORER = "/api/explorer/v2";
const IRC_METADATA = "/api/irc-metadata/v1";

export type { DevTimeJson };

/** The spammer's status (`GET /api/spammer/v1/status`, inx-spammer's fields and the rate reached). */
export type SpammerStatus = SpammerStatusJson;
export type { SpammerStartJson };

export const api = {
  info: (o?: CallOptions) => getJson<NodeInfo>(`${CORE}/info`, o),
  /** The node's clock (a dev network's coordinator only; 404 elsewhere). */
  devTime: (o?: CallOptions) => getJson<DevTimeJson>("/api/dev/v1/time", o),
  nodeStatus: (o?: CallOptions) => getJson<NodeStatus>("/api/dashboard/v1/node", o),
  treasury: (o?: CallOptions) => getJson<Treasury>(`${CORE}/treasury`, o),

  block: (blockId: string, o?: CallOptions) => getJson<BlockJson>(`${CORE}/blocks/${seg(blockId)}`, o),
  blockMetadata: (blockId: string, o?: CallOptions) =>
    getJson<BlockMetadata>(`${CORE}/blocks/${seg(blockId)}/metadata`, o),
  includedBlock: (transactionId: string, o?: CallOptions) =>
    getJson<BlockJson>(`${CORE}/transactions/${seg(transactionId)}/included-block`, o),
  includedBlockMetadata: (transactionId: string, o?: CallOptions) =>
    getJson<BlockMetadata>(`${CORE}/transactions/${seg(transactionId)}/included-block/metadata`, o),

  output: (outputId: string, o?: CallOptions) => getJson<OutputWithMetadata>(`${CORE}/outputs/${seg(outputId)}`, o),
  outputMetadata: (outputId: string, o?: CallOptions) =>
    getJson<OutputMetadata>(`${CORE}/outputs/${seg(outputId)}/metadata`, o),
  outputBytes: (outputId: string, o?: CallOptions) => getBytes(`${CORE}/outputs/${seg(outputId)}`, o),
  outputFull: (outputId: string, o?: CallOptions) =>
    getJson<OutputFull>(`/api/core/v3/outputs/${seg(outputId)}/full`, o),
  blockBytes: (blockId: string, o?: CallOptions) => getBytes(`${CORE}/blocks/${seg(blockId)}`, o),
  includedBlockBytes: (transactionId: string, o?: CallOptions) =>
    getBytes(`${CORE}/transactions/${seg(transactionId)}/included-block`, o),

  milestoneById: (milestoneId: string, o?: CallOptions) =>
    getJson<MilestonePayload>(`${CORE}/milestones/${seg(milestoneId)}`, o),
  milestoneByIndex: (index: number, o?: CallOptions) =>
    getJson<MilestonePayload>(`${CORE}/milestones/by-index/${index}`, o),
  utxoChangesByIndex: (index: number, o?: CallOptions) =>
    getJson<UtxoChanges>(`${CORE}/milestones/by-index/${index}/utxo-changes`, o),

  /** An inx-indexer listing: `kind` "" (every output), "basic", "alias", "foundry" or "nft". */
  indexerOutputs: (
    kind: "" | "basic" | "alias" | "foundry" | "nft",
    params: Record<string, string | number | boolean | undefined> = {},
    o?: CallOptions,
  ) => getJson<IndexerPage>(`${INDEXER}/outputs${kind ? `/${kind}` : ""}${query(params)}`, o),
  /** The output of an alias, NFT or foundry by its ID. */
  indexerChain: (kind: "alias" | "nft" | "foundry", id: string, o?: CallOptions) =>
    getJson<IndexerLookupJson>(`${INDEXER}/outputs/${kind}/${seg(id)}`, o),

  explorerMilestones: (
    params: {
      startTimestamp?: number;
      endTimestamp?: number;
      sort?: "newest" | "oldest";
      pageSize?: number;
      cursor?: string;
    },
    o?: CallOptions,
  ) => getJson<MilestonesPage>(`${EXPLORER}/milestones${query(params)}`, o),
  explorerBalance: (bech32: string, o?: CallOptions) => getJson<BalanceAnswer>(`${EXPLORER}/balance/${seg(bech32)}`, o),
  explorerMilestoneBlocksByIndex: (
    index: number,
    params: { pageSize?: number; cursor?: string } = {},
    o?: CallOptions,
  ) => getJson<MilestoneBlocksPage>(`${EXPLORER}/milestones/by-index/${index}/blocks${query(params)}`, o),
  explorerBlockChildren: (blockId: string, params: { pageSize?: number; cursor?: string } = {}, o?: CallOptions) =>
    getJson<ChildrenPage>(`${EXPLORER}/blocks/${seg(blockId)}/children${query(params)}`, o),
  explorerUpdatesByAddress: (
    bech32: string,
    params: { pageSize?: number; sort?: "newest" | "oldest"; cursor?: string; startMilestoneIndex?: number } = {},
    o?: CallOptions,
  ) => getJson<AddressUpdates>(`${EXPLORER}/ledger/updates/by-address/${seg(bech32)}${query(params)}`, o),

  peers: (token: string, o?: CallOptions) => getJson<Peer[]>(`${CORE}/peers`, { ...o, token }),
  addPeer: (token: string, multiAddress: string, alias?: string) =>
    postJson<Peer>(`${CORE}/peers`, alias ? { multiAddress, alias } : { multiAddress }, { token }),
  removePeer: (token: string, peerId: string) => deleteCall(`${CORE}/peers/${seg(peerId)}`, { token }),

  /** An NFT's IRC-27 metadata; 404 (with the reason) when it has none that is valid. */
  ircNft: (nftId: string, o?: CallOptions) => getJson<Irc27Metadata>(`${IRC_METADATA}/nfts/${seg(nftId)}`, o),
  /** A native token's IRC-30 metadata (its foundry's); 404 (with the reason) when it has none that is valid. */
  ircToken: (tokenId: string, o?: CallOptions) => getJson<Irc30Metadata>(`${IRC_METADATA}/tokens/${seg(tokenId)}`, o),
  /** A proof of inclusion of a referenced block (inx-poi's routes). */
  poiCreate: (blockId: string, o?: CallOptions) => getJson<InclusionProofJson>(`/api/poi/v1/create/${seg(blockId)}`, o),
  /** The node's check of a proof of inclusion (the coordinator's signatures among it). */
  poiValidate: (proof: InclusionProofJson) => postJson<PoiValidJson>("/api/poi/v1/validate", proof),

  faucetInfo: (o?: CallOptions) => getJson<FaucetInfo>("/api/faucet/v1/info", o),
  faucetEnqueue: (address: string) => postJson<FaucetEnqueued>("/api/faucet/v1/enqueue", { address }),

  spammerStatus: (token: string, o?: CallOptions) => getJson<SpammerStatus>("/api/spammer/v1/status", { ...o, token }),
  spammerStart: (token: string, settings: SpammerStartJson) =>
    postJson<SpammerStatus>("/api/spammer/v1/start", settings, { token }),
  spammerStop: (token: string) => postJson<SpammerStatus>("/api/spammer/v1/stop", undefined, { token }),
};
