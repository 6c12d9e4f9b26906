/**
 * Shared setup of the API tests: a real `LedgerNode` on a temporary data directory, the fastify
 * app over it (driven with `inject()`), the exact error shape, and signed dev-key transactions.
 */
import assert from "node:assert/strict";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import type { ApiNode } from "../../src/api/apiNode.js";
import { STATUS_MESSAGES } from "../../src/api/errors.js";
import { type ApiServerOptions, buildServer, defaultApiServerOptions } from "../../src/api/server.js";
import { essenceSigningHash, inputsCommitment, networkIdFromName, utxoInputOfOutputId } from "../../src/codec/ids.js";
import { transactionToJson } from "../../src/codec/transaction.js";
import { type BasicOutput, type Output, PayloadType, type TransactionPayload } from "../../src/codec/types.js";
import { type Ed25519KeyPair, ed25519Sign } from "../../src/crypto/ed25519.js";
import { DEV_TOKEN_SUPPLY, devGenesisOutput, GENESIS_OUTPUT_ID } from "../../src/node/devNetwork.js";
import type { LedgerNode } from "../../src/node/node.js";
import { defaultNodeOptions, type NodeOptions } from "../../src/node/options.js";
import { openTempNode } from "./node.js";
import { devWallet } from "./wallet.js";

export const CORE = "/api/core/v2";
export const BINARY = "application/vnd.iota.serializer-v1";

export interface Harness {
  node: LedgerNode;
  app: FastifyInstance;
  dir: string;
  close(): Promise<void>;
}

/** Opens a node (coordinator not started: tests issue milestones by hand) and its API. */
export async function openHarness(
  options: Partial<NodeOptions> = {},
  server: ApiServerOptions = defaultApiServerOptions,
): Promise<Harness> {
  const { node, dir, close } = await openTempNode("api", { minPowScore: defaultNodeOptions.minPowScore, ...options });
  const app = buildServer(node, "silent", server);
  return {
    node,
    app,
    dir,
    async close() {
      await app.close();
      await close();
    },
  };
}

/** `openHarness`, then the first milestone issued and confirmed: the node is healthy, as a running one is. */
export async function openHealthyHarness(
  options: Partial<NodeOptions> = {},
  server: ApiServerOptions = defaultApiServerOptions,
): Promise<Harness> {
  const h = await openHarness(options, server);
  await h.node.coordinator.issueMilestone();
  return h;
}

/** The API over the same node with other node settings (e.g. no PoW workers). */
export function viewWith(node: LedgerNode, options: Partial<ApiNode["options"]>): ApiNode {
  return {
    tangle: node.tangle,
    db: node.db,
    coordinatorPublicKey: node.coordinatorPublicKey,
    milestoneKeys: node.milestoneKeys,
    jwtSecret: node.jwtSecret,
    options: { ...node.options, ...options },
    intake: node.intake,
    indexer: node.indexer,
    metrics: node.metrics,
  };
}

export async function inject(app: FastifyInstance, options: InjectOptions | string): Promise<LightMyRequestResponse> {
  return app.inject(options);
}

/** The dev routes' prefix (api/routes/dev.ts). */
export const DEV = "/api/dev/v1";

/** A POST through the harness's app, with `payload` as its JSON body when given. */
export function post(h: Harness, url: string, payload?: object): Promise<LightMyRequestResponse> {
  return inject(h.app, { method: "POST", url, ...(payload ? { payload } : {}) });
}

/** An answer's JSON body as `T`. */
export const json = <T>(res: { json(): unknown }): T => res.json() as T;

/** Asserts the spec's error shape exactly: `{error: {code, message, details}}`, nothing else. */
export function assertError(res: LightMyRequestResponse, status: number, detailsPattern?: RegExp): string {
  assert.equal(res.statusCode, status, `status ${res.statusCode}: ${res.body}`);
  assert.match(String(res.headers["content-type"]), /^application\/json/);
  const body = res.json() as { error: { code: number; message: string; details: string } };
  assert.deepEqual(Object.keys(body), ["error"]);
  assert.deepEqual(Object.keys(body.error).sort(), ["code", "details", "message"]);
  assert.equal(body.error.code, status);
  assert.equal(body.error.message, STATUS_MESSAGES[status]);
  assert.equal(typeof body.error.details, "string");
  assert.doesNotMatch(body.error.details, /\n\s+at /, "no stack trace");
  if (detailsPattern) assert.match(body.error.details, detailsPattern);
  return body.error.details;
}

export const HEX32 = /^0x[0-9a-f]{64}$/;
export const HEX34 = /^0x[0-9a-f]{68}$/;

/** A basic output of `amount` to an Ed25519 address. */
export function basicTo(pubKeyHash: Uint8Array, amount: bigint): BasicOutput {
  return {
    type: 3,
    amount,
    nativeTokens: [],
    unlockConditions: [{ type: 0, address: { type: 0, pubKeyHash } }],
    features: [],
  };
}

/** A transaction on the dev network spending `inputs` (all owned by `keyPair`) into `outputs`. */
export function devTransaction(
  inputs: { outputId: Uint8Array; output: Output }[],
  outputs: Output[],
  keyPair: Ed25519KeyPair,
  networkName = "dev",
): TransactionPayload {
  const essence = {
    type: 1 as const,
    networkId: networkIdFromName(networkName),
    inputs: inputs.map((i) => utxoInputOfOutputId(i.outputId)),
    inputsCommitment: inputsCommitment(inputs.map((i) => i.output)),
    outputs,
  };
  const signature = ed25519Sign(keyPair, essenceSigningHash(essence));
  return {
    type: PayloadType.Transaction,
    essence,
    unlocks: inputs.map((_, i) =>
      i === 0
        ? { type: 0 as const, signature: { type: 0 as const, publicKey: keyPair.publicKey, signature } }
        : { type: 1 as const, reference: 0 },
    ),
  };
}

/** A dev-key transaction spending the genesis output: `amount` to `recipient`, the rest back to the dev key. */
export function genesisPayment(recipient: Uint8Array, amount: bigint): TransactionPayload {
  const dev = devWallet();
  return devTransaction(
    [{ outputId: GENESIS_OUTPUT_ID, output: devGenesisOutput() }],
    [basicTo(recipient, amount), basicTo(dev.address.pubKeyHash, DEV_TOKEN_SUPPLY - amount)],
    dev.keyPair,
  );
}

/** Submits a block with `tx` as JSON (no parents, nonce: the node fills them) through the app. */
export function postTransaction(app: FastifyInstance, tx: TransactionPayload): Promise<LightMyRequestResponse> {
  return app.inject({
    method: "POST",
    url: `${CORE}/blocks`,
    payload: { protocolVersion: 2, payload: transactionToJson(tx) },
  });
}
