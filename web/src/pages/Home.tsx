import { useEffect, useState } from "preact/hooks";
import { api, type NodeInfo, type NodeStatus } from "../api";
import { Chart } from "../chart";
import { Card, Fetched, FetchedCard, Loading, Stats } from "../components";
import type { MilestoneInfoEvent } from "../events";
import { formatAgo, formatAmount, formatBytes, formatDuration, formatNumber, formatPercent, shortHex } from "../format";
import { useConfirmedMilestone, useFetched, useTick, useTitle } from "../hooks";
import { useNodeInfo } from "../nodeInfo";
import { href } from "../paths";

/**
 * The node at a glance, as node-dashboard's home shows it: identity and sync (`GET
 * /api/core/v2/info`; the treasury of `GET /api/core/v2/treasury` when it holds tokens, as on a
 * node started from a snapshot of a network with migration), the process (`GET
 * /api/dashboard/v1/node`), live charts of the info
 * route's rates (blocks and referenced blocks per second, referenced rate) sampled at each
 * reload of the info (every milestone, NodeInfoProvider), and a feed of confirmed milestones
 * from the event API (`milestone-info/confirmed`, which sends the current one at once).
 */

/** Samples kept for the charts: five minutes at one milestone per second. */
const MAX_SAMPLES = 300;
/** Milestones kept in the feed. */
const MAX_FEED = 25;
/** How often the process figures are asked for. */
const PROCESS_REFRESH_MS = 5_000;
/** How often the treasury is asked for (it moves only with a snapshot import). */
const TREASURY_REFRESH_MS = 60_000;

interface Samples {
  /** Unix seconds. */
  t: number[];
  bps: number[];
  rbps: number[];
  rate: number[];
}

const EMPTY: Samples = { t: [], bps: [], rbps: [], rate: [] };

/** `samples` with one more from `info`, the oldest dropped beyond MAX_SAMPLES. */
function addSample(samples: Samples, info: NodeInfo): Samples {
  const keep = (xs: number[], x: number) => [...xs.slice(-(MAX_SAMPLES - 1)), x];
  const m = info.metrics;
  return {
    t: keep(samples.t, Date.now() / 1000),
    bps: keep(samples.bps, m.blocksPerSecond),
    rbps: keep(samples.rbps, m.referencedBlocksPerSecond),
    rate: keep(samples.rate, m.referencedRate),
  };
}

const perSecond = (v: number) => `${formatNumber(v, 1)} /s`;

/** The node's clock while it is ahead of the wall clock (time travel on a dev node), else nothing. */
function useNodeClock(): string | undefined {
  const time = useFetched((signal) => api.devTime({ signal }).catch(() => undefined), [], PROCESS_REFRESH_MS);
  const t = time.data;
  if (!t || t.offsetSeconds === 0) return undefined;
  return `${new Date(t.timestamp * 1000).toISOString().replace(".000Z", "Z")} (${formatDuration(t.offsetSeconds)} ahead of the wall clock)`;
}

/** The treasury's tokens when it holds any (TIP-34), else nothing: most networks have no migration. */
function useTreasury(info: NodeInfo): string | undefined {
  const treasury = useFetched((signal) => api.treasury({ signal }), [], TREASURY_REFRESH_MS);
  const t = treasury.data;
  if (!t || t.amount === "0") return undefined;
  return formatAmount(t.amount, info.baseToken);
}

function NodeStatusCard({ info }: { info: NodeInfo }) {
  const s = info.status;
  const network = info.network;
  const clock = useNodeClock();
  const treasury = useTreasury(info);
  return (
    <Card title="Status" id="status">
      <Stats
        items={[
          ["Network", info.protocol.networkName, "network"],
          ["Version", `${info.name} ${info.version}`, "version"],
          ["Synced", s.isSynced ? "yes" : "no", "synced"],
          ["Healthy", s.isHealthy ? "yes" : "no", "healthy"],
          ["Latest milestone", formatNumber(s.latestMilestone.index), "latest-milestone"],
          ["Confirmed milestone", formatNumber(s.confirmedMilestone.index), "confirmed-milestone"],
          ["Pruning index", formatNumber(s.pruningIndex), "pruning-index"],
          ["Peers", network ? `${network.connectedPeers} connected, ${network.syncedPeers} synced` : "no P2P", "peers"],
          ...(treasury ? [["Treasury", treasury, "treasury"] as [string, string, string]] : []),
          ...(clock ? [["Node clock", clock, "node-clock"] as [string, string, string]] : []),
        ]}
      />
    </Card>
  );
}

function ProcessCard() {
  const status = useFetched((signal) => api.nodeStatus({ signal }), [], PROCESS_REFRESH_MS);
  return (
    <>
      <FetchedCard title="Process" id="process" state={status} what="the process's figures">
        {(data) => (
          <Stats
            items={[
              ["Uptime", formatDuration(data.uptimeSeconds), "uptime"],
              ["Memory (resident)", formatBytes(data.memory.rss), "memory"],
              [
                "JavaScript heap",
                `${formatBytes(data.memory.heapUsed)} of ${formatBytes(data.memory.heapTotal)}`,
                "heap",
              ],
              ["Database size", formatBytes(data.databaseSize), "database-size"],
            ]}
          />
        )}
      </FetchedCard>
      {status.data && <ConnectionsCard figures={status.data.connections} />}
    </>
  );
}

/** The connection budget and the event API's budgets (what an operator watches under a flood). */
function ConnectionsCard({ figures: c }: { figures: NodeStatus["connections"] }) {
  const open = c.open.http + c.open.websocket + c.open.mqtt;
  return (
    <Card title="Connections" id="connections">
      <Stats
        items={[
          ["Clients", `${formatNumber(open)} of ${formatNumber(c.limit)}`, "clients"],
          [
            "By kind",
            `HTTP ${formatNumber(c.open.http)}, WebSocket ${formatNumber(c.open.websocket)}, MQTT ${formatNumber(c.open.mqtt)}, P2P ${formatNumber(c.open.p2p)}`,
            "connections-by-kind",
          ],
          ["Subscriptions", formatNumber(c.eventApi.subscriptions), "subscriptions"],
          ["Queued for subscribers", formatBytes(c.eventApi.queuedBytes), "queued-bytes"],
          ["Refused subscriptions", formatNumber(c.eventApi.refusedSubscriptions), "refused-subscriptions"],
          ["Dropped clients", formatNumber(c.eventApi.droppedClients), "dropped-clients"],
          ["Closed to make room", formatNumber(c.evicted), "evicted"],
          ["Newcomers refused", formatNumber(c.refused), "refused"],
        ]}
      />
    </Card>
  );
}

function MilestoneFeed() {
  const [feed, setFeed] = useState<MilestoneInfoEvent[]>([]);
  useConfirmedMilestone((m) => setFeed((f) => (f.some((x) => x.index === m.index) ? f : [m, ...f].slice(0, MAX_FEED))));
  // "n s ago" moves on
  useTick();
  return (
    <Card title="Confirmed milestones" id="milestones">
      {feed.length === 0 ? (
        <Loading what="milestones from the event API" />
      ) : (
        <ol class="feed" aria-label="Confirmed milestones, newest first">
          {feed.map((m) => (
            <li key={m.index} data-milestone={m.index}>
              <a href={href(`/explorer/milestone/${m.index}`)}>Milestone {formatNumber(m.index)}</a>
              <span class="mono" title={m.milestoneId}>
                {shortHex(m.milestoneId)}
              </span>
              <span class="muted">{formatAgo(m.timestamp)}</span>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}

/** The home page. */
export function Home() {
  useTitle("Home");
  const nodeInfo = useNodeInfo();
  const info = nodeInfo.data;
  const [samples, setSamples] = useState<Samples>(EMPTY);
  useEffect(() => {
    if (info) setSamples((s) => addSample(s, info));
  }, [info]);

  return (
    <>
      <h1>Node</h1>
      <Fetched state={nodeInfo} what="the node's status">
        {(i) => <NodeStatusCard info={i} />}
      </Fetched>
      <ProcessCard />
      <div class="grid">
        <Card title="Blocks" id="blocks-chart">
          <Chart
            caption="Blocks per second"
            series={[
              { label: "new blocks", stroke: "#0b5cad", format: perSecond },
              { label: "referenced blocks", stroke: "#136c34", format: perSecond },
            ]}
            data={[samples.t, samples.bps, samples.rbps]}
          />
        </Card>
        <Card title="Referenced rate" id="rate-chart">
          <Chart
            caption="Referenced rate of the last milestone"
            series={[{ label: "referenced rate", stroke: "#7a4b00", format: formatPercent }]}
            data={[samples.t, samples.rate]}
            yRange={[0, 100]}
          />
        </Card>
      </div>
      <MilestoneFeed />
    </>
  );
}
