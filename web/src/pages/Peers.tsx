import { useState } from "preact/hooks";
import { api, type GossipMetrics, messageOf, type Peer } from "../api";
import { JWT_SHAPE, useToken } from "../auth";
import { Card, ErrorNote, Loading } from "../components";
import { formatNumber, shortHex } from "../format";
import { useLoad, useTitle } from "../hooks";

/**
 * The node's peers, as node-dashboard's peers page lists them: connected peers, static peers
 * not connected now, banned peers, each with its heartbeat and gossip counters (`GET
 * /api/core/v2/peers`); a form adding a static peer (`POST /api/core/v2/peers`) and a button
 * removing one (`DELETE /api/core/v2/peers/{peerId}`). The routes are protected, so the page
 * first asks for a JWT (auth.ts).
 */

/** How often the list is asked for. */
const REFRESH_MS = 3_000;

function SignIn({ onToken }: { onToken: (token: string) => void }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const token = value.trim();
    if (!JWT_SHAPE.test(token)) {
      setError("That is not a JWT: it has three parts of letters, digits, - and _ separated by dots.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      // the token is kept only once the node takes it
      await api.peers(token);
      onToken(token);
    } catch (err) {
      setError(`The node refused the token: ${messageOf(err)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Sign in" id="sign-in">
      <p>
        The peer routes are protected. Paste a token of this node, printed by{" "}
        <code>npm run jwt -- --data-dir &lt;dir&gt;</code>. It is kept for this browser tab only.
      </p>
      <form onSubmit={submit}>
        <div class="field">
          <label for="jwt">JWT</label>
          <input
            id="jwt"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={value}
            onInput={(e) => setValue((e.target as HTMLInputElement).value)}
            required
          />
        </div>
        {error && <ErrorNote message={error} />}
        <button type="submit" disabled={busy}>
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
    </Card>
  );
}

function AddPeer({ token, onAdded }: { token: string; onAdded: (message: string) => void }) {
  const [address, setAddress] = useState("");
  const [alias, setAlias] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const multiAddress = address.trim();
    if (!multiAddress.startsWith("/")) {
      setError("A multiaddr starts with a slash: /ip4/<host>/tcp/<port>/p2p/<peer id>.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const peer = await api.addPeer(token, multiAddress, alias.trim() || undefined);
      setAddress("");
      setAlias("");
      onAdded(`Added peer ${peer.alias ?? peer.id}${peer.connected ? ", connected" : "; the node keeps dialling it"}.`);
    } catch (err) {
      setError(`The peer was not added: ${messageOf(err)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Add a peer" id="add-peer">
      <form onSubmit={submit}>
        <div class="field">
          <label for="peer-address">Multiaddr</label>
          <input
            id="peer-address"
            type="text"
            autocomplete="off"
            spellcheck={false}
            placeholder="/ip4/10.0.0.2/tcp/15600/p2p/12D3KooW…"
            aria-describedby="peer-address-hint"
            value={address}
            onInput={(e) => setAddress((e.target as HTMLInputElement).value)}
            required
          />
          <span id="peer-address-hint" class="hint">
            A TCP address ending in /p2p/&lt;peer id&gt;; the node keeps it as a static peer across restarts.
          </span>
        </div>
        <div class="field">
          <label for="peer-alias">Alias (optional)</label>
          <input
            id="peer-alias"
            type="text"
            autocomplete="off"
            value={alias}
            onInput={(e) => setAlias((e.target as HTMLInputElement).value)}
          />
        </div>
        {error && <ErrorNote message={error} />}
        <button type="submit" disabled={busy}>
          {busy ? "Adding…" : "Add peer"}
        </button>
      </form>
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
  const peers = useLoad((signal) => api.peers(token, { signal }), [token], REFRESH_MS);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [removeError, setRemoveError] = useState<string | undefined>(undefined);
  const [removing, setRemoving] = useState<string | undefined>(undefined);

  const remove = async (peer: Peer) => {
    setRemoving(peer.id);
    setRemoveError(undefined);
    setNotice(undefined);
    try {
      await api.removePeer(token, peer.id);
      setNotice(`Removed peer ${peer.alias ?? peer.id}.`);
      peers.reload();
    } catch (err) {
      setRemoveError(`The peer was not removed: ${messageOf(err)}`);
    } finally {
      setRemoving(undefined);
    }
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
      {removeError && <ErrorNote message={removeError} />}
      {peers.error && <ErrorNote message={peers.error} retry={peers.reload} />}
      {!peers.data && !peers.error && <Loading what="the peers" />}
      {peers.data && (
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
    </>
  );
}

/** The peers page. */
export function Peers() {
  useTitle("Peers");
  const { token, save, clear } = useToken();
  return (
    <>
      <h1>Peers</h1>
      {token ? <PeerLists token={token} onSignOut={clear} /> : <SignIn onToken={save} />}
    </>
  );
}
