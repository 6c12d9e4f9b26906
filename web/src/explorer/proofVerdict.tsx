import type { ProofVerdict } from "./codec";

/**
 * The verdict of a proof checked in the page (explorer/codec.ts), in words: verified or not and
 * why, then each step. The output page's proof of its ID and the block page's proof of
 * inclusion show it alike (`data-proof` "verified" or "failed").
 */
export function Verdict({ verdict, verified }: { verdict: ProofVerdict; verified: string }) {
  const failed = verdict.checks.find((c) => !c.ok);
  return (
    <>
      {verdict.verified ? (
        <output class="notice" data-proof="verified">
          Proof verified: {verified}.
        </output>
      ) : (
        <p class="error" role="alert" data-proof="failed">
          Proof not verified: {failed?.failure ?? "a check failed"}.
        </p>
      )}
      <ol class="checks" aria-label="The proof's checks">
        {verdict.checks.map((c) => (
          <li key={c.claim} data-check={c.ok ? "passed" : "failed"}>
            <span class={c.ok ? "check-ok" : "check-failed"}>{c.ok ? "passed" : "failed"}</span> {c.claim}
            {c.failure && <span> ({c.failure})</span>}
          </li>
        ))}
      </ol>
    </>
  );
}
