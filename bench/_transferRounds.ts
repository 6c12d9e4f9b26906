/**
 * The endless transfer workload of `bench scale`, made in a child process of its own, so that a
 * million signed payloads never sit in memory at once, and neither the generator's memory nor
 * its CPU time is counted as the node's: `fanOut` funds W wallets from the dev
 * genesis, then every round each wallet spends its output back to itself (`selfTransfer`). A
 * transaction's ID, hence its output's ID, follows from its bytes, so round r + 1 is signed
 * before round r is even submitted; the submitter only has to wait until a wallet's previous
 * block is referenced before it sends the next one (white-flag applies a cone's transactions in
 * its order, so a spend of an output that is not yet in the ledger or in the spender's past
 * cone would conflict).
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { computeTransactionId, outputIdFromParts } from "../src/codec/ids.js";
import { encodePayload } from "../src/codec/payload.js";
import { type FundedOutput, fanOut, selfTransfer } from "./_transfers.js";

/** One round's payloads, packed in one buffer (payload i is `bytes[offsets[i]..offsets[i + 1]]`). */
export interface PackedPayloads {
  bytes: Uint8Array;
  offsets: Uint32Array;
}

interface RoundReply {
  round: number;
  payloads: PackedPayloads;
  /** Time the generator spent making the round, ms. */
  busyMs: number;
}

function pack(payloads: Uint8Array[]): PackedPayloads {
  const offsets = new Uint32Array(payloads.length + 1);
  for (let i = 0; i < payloads.length; i++) offsets[i + 1] = offsets[i]! + payloads[i]!.length;
  const bytes = new Uint8Array(offsets[payloads.length]!);
  payloads.forEach((p, i) => {
    bytes.set(p, offsets[i]!);
  });
  return { bytes, offsets };
}

export const payloadAt = (p: PackedPayloads, i: number): Uint8Array =>
  p.bytes.subarray(p.offsets[i]!, p.offsets[i + 1]!);

/** The generator as the main thread sees it: funding first, then rounds on request, one ahead. */
export class TransferRounds {
  private readonly child: ChildProcess;
  private readonly waiting = new Map<number, (r: RoundReply) => void>();
  private readonly ahead = new Map<number, Promise<RoundReply>>();
  /** Time the generator spent signing and encoding, ms (funding excluded). */
  busyMs = 0;
  /** Payloads made (funding excluded). */
  made = 0;

  private constructor(
    readonly wallets: number,
    readonly funding: Uint8Array[],
    child: ChildProcess,
  ) {
    this.child = child;
    child.on("message", (r: RoundReply) => {
      this.waiting.get(r.round)?.(r);
      this.waiting.delete(r.round);
    });
  }

  /** Starts the generator and waits for the W wallets' funding transactions (encoded payloads). */
  static async start(wallets: number): Promise<TransferRounds> {
    const child = fork(fileURLToPath(import.meta.url), ["--transfer-rounds", String(wallets)], {
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const funding = await new Promise<Uint8Array[]>((resolve, reject) => {
      child.once("message", (m: { funding: Uint8Array[] }) => resolve(m.funding));
      child.once("exit", (code) => reject(new Error(`the transfer generator exited with ${code}`)));
    });
    child.removeAllListeners("exit");
    return new TransferRounds(wallets, funding, child);
  }

  /** Round `r`'s payloads (wallet i's at index i); asks for round r + 1 at once, so it is ready in time. */
  async round(r: number): Promise<PackedPayloads> {
    const reply = await this.request(r);
    this.ahead.delete(r);
    void this.request(r + 1);
    this.busyMs += reply.busyMs;
    this.made += reply.payloads.offsets.length - 1;
    return reply.payloads;
  }

  private request(r: number): Promise<RoundReply> {
    let p = this.ahead.get(r);
    if (!p) {
      p = new Promise<RoundReply>((resolve) => this.waiting.set(r, resolve));
      this.ahead.set(r, p);
      this.child.send({ round: r });
    }
    return p;
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill();
    await exited;
  }
}

// ---------------------------------------------------------------- the generator process

function serve(wallets: number): void {
  const { txs, funded } = fanOut(wallets);
  process.send!({ funding: txs.map(encodePayload) });
  const spend = (f: FundedOutput): Uint8Array => {
    const tx = selfTransfer(f);
    f.id = outputIdFromParts(computeTransactionId(tx), 0);
    return encodePayload(tx);
  };
  let next = 0;
  process.on("message", ({ round }: { round: number }) => {
    // rounds are asked for in order, each once: the wallets' chain of outputs follows them
    if (round !== next) throw new Error(`round ${round} asked for, ${next} expected`);
    next++;
    const t0 = performance.now();
    const payloads = pack(funded.map(spend));
    const reply: RoundReply = { round, payloads, busyMs: performance.now() - t0 };
    process.send!(reply);
  });
}

if (process.argv[2] === "--transfer-rounds") serve(Number(process.argv[3]));
