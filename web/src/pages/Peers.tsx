import { useState } from "preact/hooks";
import { api, type GossipMetrics, type Peer } from "../api";
import { ActionForm, Card, ErrorNote, Fetched, TextField } from "../components";
import { formatNumber, shortHex } from "../format";
import { useAction, useFetched, useTitle } from "../hooks";
import { SignedIn } from "../signIn";

/**
 * The node's peers, as node-dashboard's peers page lists them: connected peers, static peers
 * not connected now, banned peers, each with its heartbeat and gossip counters (`GET
 * /api/core/v2/peers`); a form adding a static peer (`POST /api/core/v2/peers`) and a button
 * removing one (`DELETE /api/core/v2/peers/{peerId}`). The routes are protected, so the page
 * first asks for a JWT (auth.ts).
 */

/** How often the list is asked for. */
const REFRESH_MS = 3_000;

function AddPeer({ token, onAdded }: { token: string; onAdded: (message: string) => void }) {
  const [address, setAddress] = useState("");
  const [alias, setAlias] = useState("");
  const add = useAction("The peer was not added");
  const submit = () => {
    const multiAddress = address.trim();
    if (!multiAddress.startsWith("/"))
      return add.refuse("A multiaddr starts with a slash: /ip4/<host>/tcp/<port>/p2p/<peer id>.");
    return add.run(async () => {
      const peer = await api.addPeer(token, multiAddress, alias.trim() || undefined);
      setAddress("");
      setAlias("");
      onAdded(`Added peer ${peer.alias ?? peer.id}${peer.connected ? ", connected" : "; the node keeps dialling it"}.`);
    });
  };
  return (
    <Card title="Add a peer" id="add-peer">
      <ActionForm action={add} onSubmit={submit} label="Add peer" busyLabel="Adding…">
        <TextField
          id="peer-address"
          label="Multiaddr"
          value={address}
          onValue={setAddress}
          placeholder="/ip4/10.0.0.2/tcp/15600/p2p/12D3KooW…"
          spellcheck={false}
          required
          hint="A TCP address ending in /p2p/<peer id>; the node keeps it as a static peer across restarts."
        />
        <TextField id="peer-alias" label="Alias (optional)" value={alias} onValue={setAlias} />
      </ActionForm>
    </Card>
  );
}

function PeerTable({
  caption,
  peers,
  onRemove,
  busy,
}: {
  caption: string;
  peers: Peer[];
  onRemove: (peer: Peer) => void;
  busy: string | undefined;
}) {
  if (peers.length === 0) return <p class="muted">None.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Peer</th>
            <th scope="col">Addresses</th>
            <th scope="col">Relation</th>
            <th scope="col">Milestones (solid / latest)</th>
            <th scope="col">Blocks (new / known / sent)</th>
            <th scope="col">Heartbeats (in / out)</th>
            <th scope="col">Dropped / invalid</th>
            <th scope="col">Score</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {peers.map((p) => {
            const g = p.gossip;
            const n = (k: keyof GossipMetrics) => formatNumber(g?.metrics[k] ?? 0);
            const name = p.alias ?? shortHex(p.id, 8);
            return (
              <tr key={p.id} data-peer-id={p.id}>
                <th scope="row">
                  <div>{p.alias ?? "—"}</div>
                  <code title={p.id}>{shortHex(p.id, 8)}</code>
                </th>
                <td>
                  {p.multiAddresses.length === 0 ? (
                    <span class="muted">none known</span>
                  ) : (
                    p.multiAddresses.slice(0, 4).map((a) => (
                      <div key={a}>
                        <code>{a}</code>
                      </div>
                    ))
                  )}
                </td>
                <td>{p.relation === "known" ? "static" : "dialled in"}</td>
                <td>{g ? `${g.heartbeat.solidMilestoneIndex} / ${g.heartbeat.latestMilestoneIndex}` : "—"}</td>
                <td>{g ? `${n("newBlocks")} / ${n("knownBlocks")} / ${n("sentBlocks")}` : "—"}</td>
                <td>{g ? `${n("receivedHeartbeats")} / ${n("sentHeartbeats")}` : "—"}</td>
                <td>{g ? `${n("droppedPackets")} / ${n("invalidMessages")}` : "—"}</td>
                <td>{formatNumber(p.score, 1)}</td>
                <td>
                  <button
                    type="button"
                    class="secondary"
                    disabled={busy === p.id}
                    aria-label={`Remove peer ${name}`}
                    onClick={() => onRemove(p)}
                  >
                    {busy === p.id ? "Removing…" : "Remove"}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function PeerLists({ token, onSignOut }: { token: string; onSignOut: () => void }) {
  const peers = useFetched((signal) => api.peers(token, { signal }), [token], REFRESH_MS);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const removal = useAction("The peer was not removed");
  const [removing, setRemoving] = useState<string | undefined>(undefined);

  const remove = (peer: Peer) => {
    setRemoving(peer.id);
    setNotice(undefined);
    return removal
      .run(async () => {
        await api.removePeer(token, peer.id);
        setNotice(`Removed peer ${peer.alias ?? peer.id}.`);
        peers.reload();
      })
      .finally(() => setRemoving(undefined));
  };

  const list = peers.data ?? [];
  const connected = list.filter((p) => p.connected && !p.banned);
  const waiting = list.filter((p) => !p.connected && !p.banned);
  const banned = list.filter((p) => p.banned);
  return (
    <>
      <p class="toolbar">
        <span class="muted">Signed in with a JWT kept for this tab.</span>{" "}
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </p>
      <AddPeer
        token={token}
        onAdded={(message) => {
          setNotice(message);
          peers.reload();
        }}
      />
      {notice && (
        <output class="notice" data-notice>
          {notice}
        </output>
      )}
      {removal.error && <ErrorNote message={removal.error} />}
      <Fetched state={peers} what="the peers">
        {(_) => (
          <>
            <Card title={`Connected (${connected.length})`} id="peers-connected">
              <PeerTable caption="Connected peers" peers={connected} onRemove={remove} busy={removing} />
            </Card>
            <Card title={`Static, not connected (${waiting.length})`} id="peers-waiting">
              <PeerTable caption="Static peers not connected now" peers={waiting} onRemove={remove} busy={removing} />
            </Card>
            <Card title={`Banned (${banned.length})`} id="peers-banned">
              <PeerTable caption="Banned peers" peers={banned} onRemove={remove} busy={removing} />
            </Card>
          </>
        )}
      </Fetched>
    </>
  );
}

/** The peers page. */
export function Peers() {
  useTitle("Peers");
  return (
    <>
      <h1>Peers</h1>
      <SignedIn routes="The peer routes" check={(t) => api.peers(t)}>
        {(token, signOut) => <PeerLists token={token} onSignOut={signOut} />}
      </SignedIn>
    </>
  );
}
