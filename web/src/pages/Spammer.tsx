import { useEffect, useState } from "preact/hooks";
import { api, type SpammerStartJson, type SpammerStatus } from "../api";
import { Chart } from "../chart";
import { ActionForm, Card, ErrorNote, Fetched, Stats, TextField } from "../components";
import { formatNumber, formatPercent } from "../format";
import { useAction, useFetched, useTitle } from "../hooks";
import { SignedIn } from "../signIn";

/**
 * The node's spammer (`/api/spammer/v1`, inx-spammer's routes): whether it runs, the rate it
 * reaches against the one asked for (a live chart of the status's blocks per second, read every
 * second), and a form that starts it with inx-spammer's settings or stops it. The routes are
 * protected, so the page first asks for a JWT (auth.ts), as the peers page does.
 */

/** How often the status is asked for. */
const REFRESH_MS = 1_000;
/** Samples kept for the chart: five minutes. */
const MAX_SAMPLES = 300;

interface Samples {
  t: number[];
  rate: number[];
  limit: number[];
}

const EMPTY: Samples = { t: [], rate: [], limit: [] };

function addSample(samples: Samples, s: SpammerStatus): Samples {
  const keep = (xs: number[], x: number) => [...xs.slice(-(MAX_SAMPLES - 1)), x];
  return {
    t: keep(samples.t, Date.now() / 1000),
    rate: keep(samples.rate, s.running || s.blocksPerSecond > 0 ? s.blocksPerSecond : 0),
    limit: keep(samples.limit, s.running ? s.bpsRateLimit : 0),
  };
}

const perSecond = (v: number) => `${formatNumber(v, 1)} /s`;

/** The start form: the status's settings to begin with, each sent as typed (the node names a bad one). */
function StartForm({ token, status, onDone }: { token: string; status: SpammerStatus; onDone: () => void }) {
  const [rate, setRate] = useState(String(status.bpsRateLimit));
  const [workers, setWorkers] = useState(String(status.spammerWorkers));
  const [cpu, setCpu] = useState(String(status.cpuMaxUsage));
  const [value, setValue] = useState(status.valueSpamEnabled);
  const start = useAction("The spammer was not started");
  const stop = useAction("The spammer was not stopped");
  const submit = () => {
    const settings: SpammerStartJson = {
      bpsRateLimit: Number(rate),
      spammerWorkers: Number(workers),
      cpuMaxUsage: Number(cpu),
      valueSpamEnabled: value,
    };
    const bad = Object.entries(settings).find(([, v]) => typeof v === "number" && Number.isNaN(v));
    if (bad) return start.refuse(`${bad[0]} is not a number.`);
    return start.run(async () => {
      await api.spammerStart(token, settings);
      onDone();
    });
  };
  return (
    <ActionForm
      action={start}
      onSubmit={submit}
      label={status.running ? "Restart" : "Start"}
      busyLabel="Starting…"
      after={
        <>
          {stop.error && <ErrorNote message={stop.error} />}
          <button
            type="button"
            class="secondary"
            disabled={!status.running || stop.busy}
            onClick={() =>
              stop.run(async () => {
                await api.spammerStop(token);
                onDone();
              })
            }
          >
            {stop.busy ? "Stopping…" : "Stop"}
          </button>
        </>
      }
    >
      <TextField
        id="spammer-rate"
        label="Blocks per second"
        value={rate}
        onValue={setRate}
        hint="bpsRateLimit: above 0, at most 10,000; no 1-s window holds more."
      />
      <TextField
        id="spammer-workers"
        label="Submitters"
        value={workers}
        onValue={setWorkers}
        hint={`spammerWorkers: 1 to ${status.spammerWorkersMax}.`}
      />
      <TextField
        id="spammer-cpu"
        label="CPU limit"
        value={cpu}
        onValue={setCpu}
        hint="cpuMaxUsage: issuing pauses while the node uses more than this fraction of the cores (0 to 1)."
      />
      <div class="field">
        <label>
          <input type="checkbox" checked={value} onChange={(e) => setValue((e.target as HTMLInputElement).checked)} />{" "}
          Value spam (signed transfers among the spammer's own addresses)
        </label>
      </div>
    </ActionForm>
  );
}

function SpammerPanel({ token, onSignOut }: { token: string; onSignOut: () => void }) {
  const status = useFetched((signal) => api.spammerStatus(token, { signal }), [token], REFRESH_MS);
  const [samples, setSamples] = useState<Samples>(EMPTY);
  useEffect(() => {
    if (status.data) setSamples((s) => addSample(s, status.data!));
  }, [status.data]);
  return (
    <>
      <p class="toolbar">
        <span class="muted">Signed in with a JWT kept for this tab.</span>{" "}
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </p>
      <Fetched state={status} what="the spammer's status">
        {(s) => (
          <>
            <Card title="Spammer" id="spammer">
              <Stats
                items={[
                  ["State", s.running ? "running" : "stopped", "spammer-state"],
                  ["Rate reached", perSecond(s.blocksPerSecond), "spammer-rate"],
                  ["Rate limit", perSecond(s.bpsRateLimit), "spammer-limit"],
                  ["Blocks sent", formatNumber(s.sentBlocks), "spammer-sent"],
                  ["Errors", formatNumber(s.errors), "spammer-errors"],
                  ["Submitters", formatNumber(s.spammerWorkers), "spammer-workers"],
                  ["Payload", s.valueSpamEnabled ? "value transfers" : "tagged data", "spammer-payload"],
                  ["Node CPU", s.running ? formatPercent(s.cpuUsage * 100) : "—", "spammer-cpu"],
                ]}
              />
              <StartForm token={token} status={s} onDone={status.reload} />
            </Card>
            <Card title="Rate" id="spammer-chart">
              <Chart
                caption="Spam blocks per second"
                series={[
                  { label: "reached", stroke: "#0b5cad", format: perSecond },
                  { label: "limit", stroke: "#7a4b00", format: perSecond },
                ]}
                data={[samples.t, samples.rate, samples.limit]}
              />
            </Card>
          </>
        )}
      </Fetched>
    </>
  );
}

/** The spammer page. */
export function Spammer() {
  useTitle("Spammer");
  return (
    <>
      <h1>Spammer</h1>
      <SignedIn routes="The spammer's routes" check={(t) => api.spammerStatus(t)}>
        {(token, signOut) => <SpammerPanel token={token} onSignOut={signOut} />}
      </SignedIn>
    </>
  );
}
