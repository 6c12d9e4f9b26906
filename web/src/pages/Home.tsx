import { Card, ErrorNote, Loading, Stats } from "../components";
import { formatNumber, formatPercent } from "../format";
import { useTitle } from "../hooks";
import { useNodeInfo } from "../nodeInfo";

/** The node at a glance (node-dashboard's home): identity, sync, milestones, load. */
export function Home() {
  useTitle("Home");
  const { data: info, error, reload } = useNodeInfo();
  return (
    <>
      <h1>Node</h1>
      {error && <ErrorNote message={error} retry={reload} />}
      {!info && !error && <Loading what="the node's status" />}
      {info && (
        <Card title="Status" id="status">
          <Stats
            items={[
              ["Name", `${info.name} ${info.version}`, "version"],
              ["Network", info.protocol.networkName, "network"],
              ["Synced", info.status.isSynced ? "yes" : "no", "synced"],
              ["Healthy", info.status.isHealthy ? "yes" : "no", "healthy"],
              ["Latest milestone", formatNumber(info.status.latestMilestone.index), "latest-milestone"],
              ["Confirmed milestone", formatNumber(info.status.confirmedMilestone.index), "confirmed-milestone"],
              ["Pruning index", formatNumber(info.status.pruningIndex), "pruning-index"],
              ["Blocks per second", formatNumber(info.metrics.blocksPerSecond, 1), "bps"],
              ["Referenced rate", formatPercent(info.metrics.referencedRate), "referenced-rate"],
            ]}
          />
        </Card>
      )}
    </>
  );
}
