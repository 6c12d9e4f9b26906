#!/usr/bin/env node
import { openedDefaultRoutes } from "../api/auth.js";
import { ConnectionBudget, defaultConnectionBudgetOptions } from "../api/connectionBudget.js";
import { defaultApiConnectionOptions } from "../api/connectionLimits.js";
import { metricsOf } from "../api/metrics/metricsRoute.js";
import { eventApiOf } from "../api/mqtt/eventApi.js";
import { buildExplorerServer, buildPrometheusServer, buildServer } from "../api/server.js";
import { addressToBech32 } from "../codec/address.js";
import { libsodiumLoadError } from "../crypto/ed25519Engines.js";
import { planDescriptors } from "../node/descriptors.js";
import { DEFAULT_DEV_MNEMONIC } from "../node/devAccounts.js";
import { DEV_KEY, DEV_NETWORK_NAME } from "../node/devNetwork.js";
import type { DevTools } from "../node/devTools.js";
import { LedgerNode } from "../node/node.js";
import type { NodeOptions } from "../node/options.js";
import { minerPool } from "../pow/index.js";
import { isStorageError, StorageErrorCode } from "../storage/index.js";
import { isTangleError, TangleErrorCode } from "../tangle/errors.js";
import { logConfirmedMilestones } from "../tangle/milestoneLog.js";
import { nodeCommand, nodeOptionsOf } from "./flags.js";
import { MALLOC_ENV, mallocEnvApplied, onGlibc } from "./mallocEnv.js";
import { runCommand } from "./run.js";

/**
 * `npm start -- [flags]`: runs a dev node until SIGINT/SIGTERM, then shuts down cleanly.
 * `npm start -- <command> [flags]`: one of COMMANDS, each in a module of its own.
 */

type Run = (argv: readonly string[]) => Promise<number>;

/** The commands besides running the node, each loaded only when run. */
const COMMANDS: Record<string, () => Promise<Run>> = {
  token: async () => (await import("./token.js")).runTokenCommand,
  jwt: async () => (await import("./token.js")).runTokenCommand,
  "network-config": async () => (await import("./networkConfig.js")).runNetworkConfigCommand,
  init: async () => (await import("./init.js")).runInitCommand,
  keygen: async () => (await import("./init.js")).runKeygenCommand,
  inspect: async () => (await import("./inspect.js")).runInspectCommand,
};

/** The commands as the node's --help lists them. */
const COMMAND_ROWS = [
  { name: "token | jwt", help: "print a JWT for the protected routes" },
  { name: "network-config", help: "print the network configuration followers join with" },
  { name: "init", help: "create a network of your own from a network file" },
  { name: "keygen", help: "write a fresh Ed25519 key file" },
  { name: "inspect", help: "print a snapshot file's header and what it holds" },
];

async function main(): Promise<void> {
  const [first = "", ...rest] = process.argv.slice(2);
  if (Object.hasOwn(COMMANDS, first)) process.exit(await (await COMMANDS[first]!())(rest));
  const code = await runCommand({ ...nodeCommand, commands: COMMAND_ROWS }, process.argv.slice(2), (values) =>
    startNode(nodeOptionsOf(values).options),
  );
  if (typeof code === "number") process.exit(code);
}

/** Opens the node and its servers; they run until a signal shuts them down. */
async function startNode(options: NodeOptions): Promise<void> {
  // errors of the node's background work may come while it opens, before the server exists
  let app: ReturnType<typeof buildServer> | undefined;
  const node = await LedgerNode.open(options, (e) => {
    // a database refusing writes: said once, loudly, with what to do; the node keeps serving reads
    if (isStorageError(e, StorageErrorCode.WriteFailed)) {
      console.error(`ledger-node: ${e.message} (data directory ${options.dataDir})`);
      return;
    }
    if (app) app.log.error({ err: e }, "a background task failed (coordinator, confirmation, pruning or snapshots)");
    else console.error(`ledger-node: ${(e as Error).message}`);
    // a signed milestone that cannot be written: stop rather than sign another of its index
    if (isTangleError(e, TangleErrorCode.MilestoneNotApplied)) {
      console.error(`ledger-node: ${(e as Error).message}`);
      void shutdown("the coordinator stopped", 1);
    }
  });
  // one budget for every client connection of every server, within the open-file limit
  const descriptors = planDescriptors();
  const budget = new ConnectionBudget({
    ...defaultConnectionBudgetOptions,
    maxConnections: descriptors.clientConnections,
  });
  app = buildServer(node, options.logLevel, {
    budget,
    auth: { publicRoutes: options.publicRoutes, protectedRoutes: options.protectedRoutes },
    connections: {
      ...defaultApiConnectionOptions,
      requestTimeoutMs: options.apiRequestTimeoutMs,
      maxConnections: options.apiMaxConnections,
      maxConnectionsPerAddress: options.apiMaxConnectionsPerAddress,
    },
    cors: { origins: options.apiCorsOrigins },
    dashboard: { imgSrc: options.dashboardImgSrc },
    eventApi: {
      maxClients: options.mqttMaxClients,
      maxClientsPerAddress: options.mqttMaxClientsPerAddress,
      maxTotalSubscriptions: options.mqttMaxSubscriptions,
      maxTotalQueuedBytes: options.mqttMaxQueuedMiB * 1024 * 1024,
      maxLagMs: options.mqttMaxLagSeconds * 1000,
    },
  });
  const explorer =
    options.explorerPort > 0
      ? buildExplorerServer(node, options.logLevel, { origins: options.apiCorsOrigins }, budget)
      : undefined;
  // Prometheus scrapes without a token on a port of its own, bound to the API host (Hornet's bind address)
  const prometheus =
    options.prometheusPort > 0 ? buildPrometheusServer(metricsOf(app)!, options.logLevel, budget) : undefined;

  // Signals are handled from here on: one arriving while the node still starts waits for the
  // start to finish (at most the first milestone), then shuts everything down cleanly.
  let startup: Promise<unknown> = Promise.resolve();
  let closing = false;
  const shutdown = async (signal: string, exitCode = 0) => {
    if (closing) return;
    closing = true;
    console.log(`${signal}: shutting down`);
    await startup.catch(() => {});
    await app.close();
    await explorer?.close();
    await prometheus?.close();
    await node.close().catch((e) => console.error(`ledger-node: closing failed: ${(e as Error).message}`));
    process.exit(exitCode);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  if (options.snapshot && !node.importedSnapshot) {
    app.log.info(
      { snapshot: options.snapshot, dataDir: options.dataDir },
      "the data dir holds a database: resumed it, --snapshot not read (a snapshot fills an empty data dir only)",
    );
  }
  if (node.importedSnapshot && options.snapshotUnverified) {
    app.log.warn(
      { snapshot: options.snapshot, deltaSnapshot: options.deltaSnapshot || undefined },
      "--snapshot-unverified: the ledger was imported from snapshot files whose milestones were not verified (signatures, previous milestone IDs)",
    );
  }

  const opened = openedDefaultRoutes(options);
  if (opened.length > 0) {
    app.log.warn(
      { opened, protectedRoutes: options.protectedRoutes },
      "--protected-routes replaces its default list: these routes are open to anyone; list them too to keep them guarded",
    );
  }

  if (libsodiumLoadError) {
    app.log.warn(
      // a binary that is there but does not load says why in the cause
      { error: libsodiumLoadError.message, cause: (libsodiumLoadError.cause as Error | undefined)?.message },
      "sodium-native did not load on this platform: signatures are checked with node:crypto's OpenSSL, about half as fast",
    );
  }

  if (onGlibc() && !mallocEnvApplied()) {
    // glibc reads them before the first allocation: only the launcher can set them (README, Memory)
    app.log.warn(
      { missing: Object.keys(MALLOC_ENV).filter((name) => process.env[name] === undefined) },
      `started without the malloc settings npm start gives (${Object.entries(MALLOC_ENV)
        .map(([name, value]) => `${name}=${value}`)
        .join(" ")}): glibc may keep hundreds of MB the node has freed; set them where it is launched`,
    );
  }

  const start = async () => {
    logConfirmedMilestones(node.events, app.log.child({ module: "milestones" }));
    const network = await node.startNetwork(app.log.child({ module: "network" }), {
      maxConnections: descriptors.p2pConnections,
    });
    // the node's network of the moment: a dev revert starts it anew
    budget.countP2p(() => node.network?.connectionCount() ?? 0);
    if (closing) return;
    // The coordinator confirms a milestone before the API listens, so the node's first answer
    // is a healthy one (docs/decisions.md, Milestones); a follower listens at once.
    await node.startNow();
    if (closing) return;
    // with milestones on demand, threads started now rather than by the first transaction (a
    // builder's first transfer otherwise waited about a second for them; at a milestone a second
    // that is hidden, and a node that serves no transaction starts none)
    if (node.isCoordinator && options.milestones !== "interval") {
      node.verifyPool.warm();
      if (options.powWorkers > 0) minerPool("clients").warm(options.powWorkers);
    }
    await app.listen({ host: options.apiHost, port: options.apiPort });
    await explorer?.listen({ host: options.apiHost, port: options.explorerPort });
    await prometheus?.listen({ host: options.apiHost, port: options.prometheusPort });
    if (options.mqttPort > 0) await eventApiOf(app)!.listenTcp(options.apiHost, options.mqttPort);

    const url = `http://${options.apiHost}:${options.apiPort}`;
    const role = node.isCoordinator ? "coordinator" : "follower (confirms received milestones)";
    console.log(
      `ledger-node: network "${node.tangle.protocolParameters.networkName}", data in ${options.dataDir}, milestone ${node.tangle.latestMilestone.index}, ${role}`,
    );
    console.log(`API: ${url}`);
    console.log(`dashboard: ${url}/dashboard`);
    console.log(`P2P: peer ID ${network.peerId}, listening on ${network.listenAddresses().join(" ")}`);
    if (node.isCoordinator) console.log(`network config for followers: ${options.dataDir}/network.json`);
    console.log(`events: ws://${options.apiHost}:${options.apiPort}/api/mqtt/v1 (MQTT over WebSocket)`);
    if (options.mqttPort > 0) console.log(`events: mqtt://${options.apiHost}:${options.mqttPort} (MQTT over TCP)`);
    if (explorer) console.log(`explorer: http://${options.apiHost}:${options.explorerPort}/api/explorer/v2`);
    // the faucet's address only: its key is never printed
    if (node.faucet) console.log(`faucet: ${node.faucet.bech32}, requests at ${url}/api/faucet/v1/enqueue`);
    if (prometheus)
      console.log(`metrics: http://${options.apiHost}:${options.prometheusPort}/metrics (Prometheus, no token)`);
    if (node.tangle.protocolParameters.networkName === DEV_NETWORK_NAME) {
      console.log(`well-known dev key (test funds only): seed ${DEV_KEY.seed}`);
      console.log(`  public key ${DEV_KEY.publicKey}, address pubKeyHash ${DEV_KEY.pubKeyHash}`);
    }
    if (node.dev)
      for (const line of await devNodeLines(node.dev, options, url, node.tangle.protocolParameters.bech32Hrp))
        console.log(line);
  };
  startup = start();
  await startup;
}

/** What a builder needs first (Anvil's start-up listing): the accounts, the mnemonic if well known, the dev routes. */
async function devNodeLines(dev: DevTools, options: NodeOptions, url: string, hrp: string): Promise<string[]> {
  const { coinType, accounts } = await dev.accounts();
  const lines = [
    `milestones: ${options.milestones}${options.milestones === "interval" ? ` (every ${options.milestoneIntervalMs} ms)` : ""}; dev routes at ${url}/api/dev/v1`,
  ];
  if (accounts.length === 0) return lines;
  lines.push(`dev accounts (m/44'/${coinType}'/<account>'/0'/0'; test funds only):`);
  for (const a of accounts) lines.push(`  (${a.index}) ${addressToBech32(a.address, hrp)} ${a.balance}`);
  if (options.devMnemonic === DEFAULT_DEV_MNEMONIC) lines.push(`  mnemonic: ${DEFAULT_DEV_MNEMONIC}`);
  return lines;
}

main().catch((e) => {
  console.error(`ledger-node failed to start: ${(e as Error).message}`);
  process.exit(1);
});
