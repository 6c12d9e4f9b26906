import { useEffect, useState } from "preact/hooks";
import { api, type FaucetEnqueued, messageOf } from "../api";
import { ActionForm, Card, ErrorNote, Fetched, Stats, TextField } from "../components";
import { formatAmount } from "../format";
import { useAction, useFetched, useTitle } from "../hooks";
import { useNodeInfo } from "../nodeInfo";

/**
 * The faucet, as inx-faucet's own page offers it: its address and balance (`GET
 * /api/faucet/v1/info`), a form asking for funds for a bech32 address (`POST
 * /api/faucet/v1/enqueue`) with the answer and the requests waiting, then the address's balance
 * (`GET /api/explorer/v2/balance/{address}`) followed until the payment changes it. A node
 * without a faucet answers 404: the page says so.
 */

/** How often the faucet's figures are asked for. */
const INFO_REFRESH_MS = 5_000;
/** How often a requested address's balance is asked for while waiting. */
const BALANCE_POLL_MS = 1_000;
/** Longest wait for the payment before the page stops asking (a busy faucet pays in later milestones). */
const BALANCE_WAIT_MS = 120_000;

type Tracking =
  | { phase: "waiting"; address: string; before: bigint; current: bigint }
  | { phase: "paid"; address: string; before: bigint; current: bigint }
  | { phase: "gave-up"; address: string; before: bigint; current: bigint };

function RequestForm({ hrp, onQueued }: { hrp: string; onQueued: (address: string, before: bigint) => void }) {
  const [address, setAddress] = useState("");
  const [answer, setAnswer] = useState<FaucetEnqueued | undefined>(undefined);
  const request = useAction("The faucet did not take the request");
  const submit = () => {
    const a = address.trim().toLowerCase();
    if (!a.startsWith(`${hrp}1`)) return request.refuse(`An address of this network starts with "${hrp}1".`);
    setAnswer(undefined);
    return request.run(async () => {
      // the balance before the request, to see the payment arrive
      const before = BigInt((await api.explorerBalance(a)).totalBalance);
      const queued = await api.faucetEnqueue(a);
      setAnswer(queued);
      onQueued(a, before);
    });
  };
  return (
    <ActionForm
      action={request}
      onSubmit={submit}
      label="Request tokens"
      busyLabel="Requesting…"
      after={
        answer && (
          <output class="notice" data-queued={answer.waitingRequests}>
            Queued for {answer.address}: {answer.waitingRequests} request{answer.waitingRequests === 1 ? "" : "s"}{" "}
            waiting.
          </output>
        )
      }
    >
      <TextField
        id="faucet-address"
        label="Address"
        value={address}
        onValue={setAddress}
        placeholder={`${hrp}1…`}
        spellcheck={false}
        required
        hint="A bech32 address of this network; the faucet pays it with a later milestone."
      />
    </ActionForm>
  );
}

function BalanceTracker({ tracking, format }: { tracking: Tracking; format: (v: bigint) => string }) {
  return (
    <Card title="The address's balance" id="faucet-balance">
      <Stats
        items={[
          ["Address", <code key="a">{tracking.address}</code>, "tracked-address"],
          ["Before the request", format(tracking.before), "balance-before"],
          ["Now", format(tracking.current), "balance-now"],
        ]}
      />
      {tracking.phase === "waiting" && (
        <output class="loading" data-phase="waiting">
          Waiting for the payment: the balance is checked every second.
        </output>
      )}
      {tracking.phase === "paid" && (
        <output class="notice" data-phase="paid">
          The funds arrived: {format(tracking.current - tracking.before)} more.
        </output>
      )}
      {tracking.phase === "gave-up" && (
        <ErrorNote
          message={`The balance did not change within ${BALANCE_WAIT_MS / 1000} s; the request may still be waiting in the faucet's queue.`}
        />
      )}
    </Card>
  );
}

/** Follows an address's balance until it differs from the one before the request, then stops. */
function useBalanceTracking(): [Tracking | undefined, (address: string, before: bigint) => void, string | undefined] {
  const [tracking, setTracking] = useState<Tracking | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const waiting = tracking?.phase === "waiting" ? tracking : undefined;
  const address = waiting?.address;
  const before = waiting?.before;
  useEffect(() => {
    if (address === undefined || before === undefined) return;
    const controller = new AbortController();
    const started = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const current = BigInt((await api.explorerBalance(address, { signal: controller.signal })).totalBalance);
        setError(undefined);
        if (current !== before) {
          setTracking({ phase: "paid", address, before, current });
          return;
        }
      } catch (e) {
        if (controller.signal.aborted) return;
        setError(`The balance could not be read: ${messageOf(e)}`);
      }
      if (Date.now() - started > BALANCE_WAIT_MS) {
        setTracking({ phase: "gave-up", address, before, current: before });
        return;
      }
      timer = setTimeout(poll, BALANCE_POLL_MS);
    };
    timer = setTimeout(poll, BALANCE_POLL_MS);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [address, before]);
  const start = (a: string, b: bigint) => setTracking({ phase: "waiting", address: a, before: b, current: b });
  return [tracking, start, error];
}

/** The faucet page. */
export function Faucet() {
  useTitle("Faucet");
  const faucet = useFetched((signal) => api.faucetInfo({ signal }), [], INFO_REFRESH_MS);
  const { data: node } = useNodeInfo();
  const [tracking, track, trackError] = useBalanceTracking();
  const format = (v: bigint | number) => formatAmount(BigInt(v), node?.baseToken);

  const noFaucet = faucet.errorStatus === 404 && faucet.data === undefined;
  return (
    <>
      <h1>Faucet</h1>
      {noFaucet ? (
        <Card title="No faucet here">
          <p>This node runs no faucet. A node of a test network runs one when it is given the faucet's key.</p>
        </Card>
      ) : (
        <Fetched state={faucet} what="the faucet">
          {(f) => (
            <>
              <Card title="The faucet" id="faucet-info">
                <Stats
                  items={[
                    ["Address", <code key="a">{f.address}</code>, "faucet-address"],
                    ["Balance", format(f.balance), "faucet-balance"],
                    ["Token", f.tokenName, "token"],
                    ["State", f.isHealthy ? "ready" : "not ready (node not healthy or out of funds)", "faucet-state"],
                  ]}
                />
              </Card>
              <Card title="Request tokens" id="faucet-request">
                <RequestForm hrp={f.bech32Hrp} onQueued={track} />
              </Card>
              {trackError && <ErrorNote message={trackError} />}
              {tracking && <BalanceTracker tracking={tracking} format={format} />}
            </>
          )}
        </Fetched>
      )}
    </>
  );
}
