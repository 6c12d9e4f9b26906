import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type CoreClient,
  type IndexerClient,
  iota,
  iotaCrypto,
  iotaUtil,
  type Json,
  outputBytes,
  plain,
  utf8,
} from "../helpers/iota.js";
import { type NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";
import {
  basicOutput,
  DEV_SEED,
  GENESIS_OUTPUT_ID,
  type OwnedOutput,
  StardustWallet,
  type SubmittedTransaction,
  WALLET_TAG,
} from "../helpers/stardustWallet.js";
import { EventSubscriber } from "./helpers/eventSubscriber.js";
import { checkOutputIdProof, leafHash } from "./helpers/outputIdProof.js";

/**
 * Acceptance test of the node process (`dist/src/cli/main.js`) over HTTP only, driven by an
 * unmodified Stardust client, `@iota/iota.js@2.0.0-rc.4`, with no PoW provider: a wallet of
 * the dev key (docs/decisions.md, The dev network) pays a new address, creates an alias and state-transitions
 * it twice, creates a foundry that mints native tokens, mints an NFT, and destroys the alias.
 * Every block is submitted with nonce "0" and no parents (the node selects tips and mines), and
 * confirmed by the node's own coordinator. Then every created output is read through every read
 * route, the `core/v3` output ID proof is checked from the JSON alone, and iota.js's balance
 * helper is compared with the ledger this test kept. Meanwhile a subscriber of the event API
 * (`@iota/mqtt.js@2.0.0-rc.3` over WebSocket) records what the node publishes, and the last test
 * holds it against the REST answers.
 */

const DEV_PUB_KEY_HASH = "0x4c3dac64003e746d1a11d6ba9f4b20234e33627d2bf30d9d7153cb03a68f9e19";
const TOKEN_SUPPLY = 2779530283277761n;
const PAYMENT = 1_000_000n;
const ALIAS_AMOUNT = 1_000_000n;
const MINTED = 1000n;
/** Stardust output type → the v3 read's type code (docs/decisions.md, The v3 output read). */
const V3_TYPE: Record<number, number> = { 3: 0, 4: 1, 5: 3, 6: 4 };

const u32le = (n: number): string => Buffer.from(Uint32Array.of(n).buffer).toString("hex");

describe("a dev-key wallet built with iota.js against the node process", { timeout: 90_000 }, () => {
  let node: NodeProcess;
  let client: CoreClient;
  let indexer: IndexerClient;
  let dev: StardustWallet;
  let recipient: StardustWallet;
  /** Every confirmed transaction in order, and which of them spent an output, by output ID. */
  const confirmed: SubmittedTransaction[] = [];
  const spentBy = new Map<string, SubmittedTransaction>();
  let aliasId = "";
  let aliasState: OwnedOutput;
  let tokenId = "";
  let foundryDeposit = 0n;
  let nftDeposit = 0n;
  let events: EventSubscriber;
  /** The wallet's tagged-data tag, as the transactions carry it, in hex. */
  const WALLET_TAG_HEX = utf8(WALLET_TAG);

  /** Records a transaction a milestone included: in `confirmed`, and as the spender of its inputs. */
  const keep = (tx: SubmittedTransaction): SubmittedTransaction => {
    confirmed.push(tx);
    for (const input of tx.inputs) spentBy.set(input.outputId, tx);
    return tx;
  };
  const submit = async (label: string, inputs: OwnedOutput[], outputs: Json[]): Promise<SubmittedTransaction> =>
    keep(await dev.sendConfirmed(label, inputs, outputs));
  /** The indexer's alias lookup names exactly the latest alias output (output 0 of `tx`), as of that milestone. */
  const assertAliasLookup = async (tx: SubmittedTransaction): Promise<void> => {
    const r = await indexer.alias(aliasId);
    assert.deepEqual(r.items, [tx.created[0]!.outputId], `alias lookup after ${tx.label}`);
    assert.ok(r.ledgerIndex >= tx.milestoneIndex!, `ledgerIndex ${r.ledgerIndex} after ${tx.label}`);
  };

  before(async () => {
    node = await startNodeProcess(["--milestone-interval", "200", "--log-level", "warn"]);
    client = new iota.SingleNodeClient(node.url);
    indexer = new iota.IndexerPluginClient(client);
    dev = await StardustWallet.open(client, DEV_SEED);
    recipient = await StardustWallet.fromPhrase(client, "ledger-node wallet e2e recipient");
    events = await EventSubscriber.connect(
      node.url,
      [
        "block-metadata/referenced",
        `outputs/unlock/address/${dev.bech32}`,
        `outputs/unlock/address/${dev.bech32}/spent`,
        `outputs/unlock/+/${dev.bech32}`,
      ],
      [
        `blocks/transaction/tagged-data/${WALLET_TAG_HEX}`,
        `blocks/tagged-data/${WALLET_TAG_HEX}`,
        `blocks/transaction/tagged-data/${utf8("another tag")}`,
      ],
    );
  });
  after(async () => {
    events?.close();
    if (node) assert.equal(await node.close(), 0, `the node did not shut down cleanly: ${node.output}`);
  });

  it("sends tokens to a new address (sendAdvanced, nonce 0: the node mines)", async () => {
    assert.equal(dev.pubKeyHash, DEV_PUB_KEY_HASH, "iota.js derives the dev address from the dev seed");
    assert.match(dev.bech32, /^tst1/);
    const genesis = await client.output(GENESIS_OUTPUT_ID);
    assert.equal(genesis.output.amount, TOKEN_SUPPLY.toString());
    assert.equal(genesis.metadata.isSpent, false);

    const sent = await iota.sendAdvanced(
      client,
      [
        {
          input: iota.TransactionHelper.inputFromOutputId(GENESIS_OUTPUT_ID),
          addressKeyPair: dev.keyPair,
          consumingOutput: genesis.output,
        },
      ],
      [
        { address: recipient.pubKeyHash, addressType: 0, amount: PAYMENT.toString() },
        { address: dev.pubKeyHash, addressType: 0, amount: (TOKEN_SUPPLY - PAYMENT).toString() },
      ],
      { tag: WALLET_TAG, data: "payment" },
    );
    assert.equal(sent.block.nonce, "0", "the client did no PoW");
    assert.deepEqual(sent.block.parents, [], "the client chose no parents");
    const tx = dev.record("payment", sent.blockId, sent.block.payload, [
      { outputId: GENESIS_OUTPUT_ID, output: genesis.output },
    ]);
    await dev.confirm(tx);
    keep(tx);
    const block = await client.block(tx.blockId);
    assert.notEqual(block.nonce, "0", "the node mined the nonce");
    assert.ok(block.parents.length >= 1, "the node filled the parents");
  });

  it("creates an alias and state-transitions it twice; the alias lookup follows every step", async () => {
    const funds = confirmed[0]!.created[1]!;
    const alias0 = dev.aliasOutput(ALIAS_AMOUNT);
    const create = await submit(
      "create alias",
      [funds],
      [alias0, basicOutput(dev.address, TOKEN_SUPPLY - PAYMENT - ALIAS_AMOUNT)],
    );
    aliasId = iota.TransactionHelper.resolveIdFromOutputId(create.created[0]!.outputId);
    await assertAliasLookup(create);

    aliasState = create.created[0]!;
    for (const [i, stateMetadata] of ["0x01", "0x0102"].entries()) {
      const next = { ...alias0, aliasId, stateIndex: i + 1, stateMetadata };
      assert.ok(dev.storageDeposit(next) <= ALIAS_AMOUNT);
      const transition = await submit(`alias state transition ${i + 1}`, [aliasState], [next]);
      await assertAliasLookup(transition);
      aliasState = transition.created[0]!;
    }
  });

  it("creates a foundry on the alias and mints native tokens", async () => {
    const funds = confirmed[1]!.created[1]!;
    tokenId = iota.TransactionHelper.constructTokenId(aliasId, 1, 0);
    const foundry = dev.foundryOutput(aliasId, 1, MINTED, "ledger-node e2e token");
    foundryDeposit = BigInt(foundry.amount);
    const alias = { ...aliasState.output, stateIndex: 3, foundryCounter: 1 };
    const rest = basicOutput(dev.address, BigInt(funds.output.amount) - foundryDeposit, [
      { id: tokenId, amount: `0x${MINTED.toString(16)}` },
    ]);
    const tx = await submit("create foundry and mint", [aliasState, funds], [alias, foundry, rest]);
    await assertAliasLookup(tx);
    aliasState = tx.created[0]!;
    assert.deepEqual((await indexer.foundry(tokenId)).items, [tx.created[1]!.outputId]);
  });

  it("mints an NFT", async () => {
    const funds = confirmed[4]!.created[2]!;
    const nft = dev.nftOutput("ledger-node e2e NFT");
    nftDeposit = BigInt(nft.amount);
    const rest = basicOutput(dev.address, BigInt(funds.output.amount) - nftDeposit, funds.output.nativeTokens);
    const tx = await submit("mint NFT", [funds], [nft, rest]);
    const nftId = iota.TransactionHelper.resolveIdFromOutputId(tx.created[0]!.outputId);
    assert.deepEqual((await indexer.nft(nftId)).items, [tx.created[0]!.outputId]);
  });

  it("destroys the alias (governance transition): the alias lookup answers 404", async () => {
    await submit("destroy alias", [aliasState], [basicOutput(dev.address, ALIAS_AMOUNT)]);
    await assert.rejects(indexer.alias(aliasId), (e: { httpStatus?: number }) => {
      assert.equal(e.httpStatus, 404);
      return true;
    });
  });

  // ---------------------------------------------------------------- reads of what the wallet did

  const milestones = new Map<number, { id: string; timestamp: number }>();
  const milestone = async (index: number) => {
    if (!milestones.has(index)) {
      const m = await client.milestoneByIndex(index);
      milestones.set(index, { id: iota.milestoneIdFromMilestonePayload(m), timestamp: m.timestamp });
    }
    return milestones.get(index)!;
  };
  /** docs/decisions.md, Commitments: milestone ID ‖ index as u32 little-endian. */
  const commitmentId = async (index: number) => `${(await milestone(index)).id}${u32le(index)}`;

  /** The including block (JSON and raw), its metadata, the transaction's included block, the milestone's diff. */
  const checkTransactionReads = async (tx: SubmittedTransaction, minPowScore: number): Promise<void> => {
    const block = await client.block(tx.blockId);
    assert.equal(iota.TransactionHelper.calculateBlockId(block), tx.blockId, tx.label);
    assert.deepEqual(block.payload, tx.payload, tx.label);
    const raw = await client.blockRaw(tx.blockId);
    assert.deepEqual(plain(iota.deserializeBlock(new iotaUtil.ReadStream(raw))), block, tx.label);
    assert.ok(iotaCrypto.PowHelper.score(raw) >= minPowScore, `${tx.label}: the node's nonce meets minPowScore`);
    const meta = await client.blockMetadata(tx.blockId);
    assert.equal(meta.referencedByMilestoneIndex, tx.milestoneIndex);
    assert.equal(meta.ledgerInclusionState, "included");
    assert.equal(meta.isSolid, true);
    assert.deepEqual(await client.transactionIncludedBlock(tx.transactionId), block, tx.label);
    const changes = await client.milestoneUtxoChangesByIndex(tx.milestoneIndex!);
    for (const o of tx.created) assert.ok(changes.createdOutputs.includes(o.outputId), `${tx.label}: created`);
    for (const o of tx.inputs) assert.ok(changes.consumedOutputs.includes(o.outputId), `${tx.label}: consumed`);
  };

  /** core v2: the output with its metadata, the metadata alone, the raw bytes. */
  const checkV2Reads = async (tx: SubmittedTransaction, index: number): Promise<void> => {
    const { outputId, output } = tx.created[index]!;
    const what = `${tx.label}, output ${index}`;
    const spender = spentBy.get(outputId);
    const v2 = await client.output(outputId);
    assert.deepEqual(v2.output, output, what);
    const expected: Json = {
      blockId: tx.blockId,
      transactionId: tx.transactionId,
      outputIndex: index,
      isSpent: spender !== undefined,
      milestoneIndexBooked: tx.milestoneIndex,
      milestoneTimestampBooked: (await milestone(tx.milestoneIndex!)).timestamp,
      ...(spender
        ? {
            milestoneIndexSpent: spender.milestoneIndex,
            milestoneTimestampSpent: (await milestone(spender.milestoneIndex!)).timestamp,
            transactionIdSpent: spender.transactionId,
          }
        : {}),
    };
    const { ledgerIndex, ...metadata } = v2.metadata;
    assert.deepEqual(metadata, expected, what);
    assert.ok(ledgerIndex >= (spender ?? tx).milestoneIndex!, what);
    const { ledgerIndex: _, ...alone } = await client.outputMetadata(outputId);
    assert.deepEqual(alone, expected, what);
    const raw = await client.outputRaw(outputId);
    assert.deepEqual(plain(iota.deserializeOutput(new iotaUtil.ReadStream(raw))), output, what);
  };

  /** core v3: the output in its v3 shape, its proof checked from the JSON, slots and commitments. */
  const checkV3Read = async (tx: SubmittedTransaction, index: number): Promise<void> => {
    const { outputId, output } = tx.created[index]!;
    const what = `${tx.label}, output ${index}`;
    const spender = spentBy.get(outputId);
    const res = await fetch(`${node.url}/api/core/v3/outputs/${outputId}/full`);
    assert.equal(res.status, 200, what);
    const full = (await res.json()) as Json;
    const { type, ...fields } = output;
    assert.deepEqual(full.output, { ...fields, type: V3_TYPE[type], mana: "0" }, what);

    assert.equal(full.outputIdProof.slot, tx.milestoneIndex, what);
    assert.equal(full.outputIdProof.outputIndex, index, what);
    assert.equal(checkOutputIdProof(full.outputIdProof, tx.payload.essence, index), undefined, what);
    if (tx.created.length > 1) {
      const other = (index + 1) % tx.created.length;
      assert.ok(checkOutputIdProof(full.outputIdProof, tx.payload.essence, other), "it proves one output only");
    }

    const { latestCommitmentId, ...metadata } = full.metadata;
    const at = tx.milestoneIndex!;
    assert.deepEqual(
      metadata,
      {
        outputId,
        blockId: tx.blockId,
        included: { slot: at, transactionId: tx.transactionId, commitmentId: await commitmentId(at) },
        ...(spender
          ? {
              spent: {
                slot: spender.milestoneIndex,
                transactionId: spender.transactionId,
                commitmentId: await commitmentId(spender.milestoneIndex!),
              },
            }
          : {}),
      },
      what,
    );
    assert.match(latestCommitmentId, /^0x[0-9a-f]{72}$/);
    const latestIndex = Buffer.from(latestCommitmentId.slice(66), "hex").readUInt32LE(0);
    assert.ok(latestIndex >= confirmed.at(-1)!.milestoneIndex!, what);
    assert.equal(latestCommitmentId, await commitmentId(latestIndex), what);
  };

  it("every created output reads the same through every read route, and its v3 proof verifies", async () => {
    const minPowScore = (await client.info()).protocol.minPowScore as number;
    assert.equal(minPowScore, 100, "the default minimum PoW score");
    let checked = 0;
    for (const tx of confirmed) {
      await checkTransactionReads(tx, minPowScore);
      for (let index = 0; index < tx.created.length; index++) {
        await checkV2Reads(tx, index);
        await checkV3Read(tx, index);
        checked++;
      }
    }
    assert.equal(checked, 12, "2 + 2 + 1 + 1 + 3 + 2 + 1 outputs created by the seven transactions");
  });

  it("the spent genesis output reads in v3 with the genesis proof form", async () => {
    const payment = confirmed[0]!;
    const res = await fetch(`${node.url}/api/core/v3/outputs/${GENESIS_OUTPUT_ID}/full`);
    assert.equal(res.status, 200);
    const full = (await res.json()) as Json;
    const genesis = (await dev.genesis()).output;
    const { type, ...fields } = genesis;
    assert.deepEqual(full.output, { ...fields, type: V3_TYPE[type], mana: "0" });
    // no creating transaction on record: H("genesis") and a single value-hash node (docs/decisions.md, The v3 output read)
    const genesisCommitment = iotaCrypto.Blake2b.sum256(new TextEncoder().encode("genesis"));
    assert.equal(full.outputIdProof.transactionCommitment, iotaUtil.Converter.bytesToHex(genesisCommitment, true));
    assert.deepEqual(full.outputIdProof.outputCommitmentProof, {
      type: 2,
      hash: iotaUtil.Converter.bytesToHex(leafHash(outputBytes(genesis)), true),
    });
    assert.equal(full.metadata.spent.transactionId, payment.transactionId);
    assert.equal(full.metadata.spent.slot, payment.milestoneIndex);
  });

  it("the event API published every milestone, referenced block and output of the flow, once, as REST answers them", async () => {
    assert.deepEqual(events.errors, []);
    // milestone-info/confirmed: every milestone since the subscription, in order
    const confirmedInfo = events.on<{ index: number; timestamp: number; milestoneId: string }>(
      "milestone-info/confirmed",
    );
    const first = confirmedInfo[0]!.index;
    const last = confirmedInfo.at(-1)!.index;
    assert.deepEqual(
      confirmedInfo.map((m) => m.index),
      Array.from({ length: last - first + 1 }, (_, i) => first + i),
    );
    for (const m of confirmedInfo.slice(-3)) {
      assert.equal(m.milestoneId, iota.milestoneIdFromMilestonePayload(await client.milestoneByIndex(m.index)));
    }

    // block-metadata/referenced: each milestone's blocks once, in white-flag order, as REST has them
    const referenced = events.on("block-metadata/referenced");
    for (let index = first + 1; index <= last; index++) {
      const rest = (await (
        await fetch(`${node.url}/api/explorer/v2/milestones/by-index/${index}/blocks?pageSize=1000`)
      ).json()) as { blocks: { blockId: string }[] };
      const published = referenced.filter((m) => m.referencedByMilestoneIndex === index);
      assert.deepEqual(
        published.map((m) => m.blockId),
        rest.blocks.map((b) => b.blockId),
        `milestone ${index}`,
      );
      for (const m of published) assert.deepEqual(m, plain(await client.blockMetadata(m.blockId)));
    }

    // outputs/unlock/address/{dev}: every output created for the dev address, and /spent every one spent
    const mine = (o: OwnedOutput) =>
      (o.output.unlockConditions as Json[]).some((u) => u.type === 0 && u.address.pubKeyHash === dev.pubKeyHash);
    const withoutLedgerIndex = (r: Json) => ({ ...r, metadata: { ...r.metadata, ledgerIndex: 0 } });
    const created = events.on(`outputs/unlock/address/${dev.bech32}`);
    const spent = events.on(`outputs/unlock/address/${dev.bech32}/spent`);
    const expectCreated = confirmed.flatMap((tx) => tx.created).filter(mine);
    assert.deepEqual(
      created.map((r) => `${r.metadata.transactionId}:${r.metadata.outputIndex}`).sort(),
      expectCreated
        .map(
          (o) =>
            `${o.outputId.slice(0, 66)}:${Number.parseInt(o.outputId.slice(68, 70) + o.outputId.slice(66, 68), 16)}`,
        )
        .sort(),
    );
    for (const r of created) {
      const id = iota.TransactionHelper.outputIdFromTransactionData(r.metadata.transactionId, r.metadata.outputIndex);
      const now = plain(await client.output(id));
      const unspentThen = {
        ...now,
        metadata: {
          ...now.metadata,
          isSpent: false,
          milestoneIndexSpent: undefined,
          milestoneTimestampSpent: undefined,
          transactionIdSpent: undefined,
        },
      };
      assert.deepEqual(withoutLedgerIndex(r), JSON.parse(JSON.stringify(withoutLedgerIndex(unspentThen))), id);
    }
    const expectSpent = confirmed.flatMap((tx) => tx.inputs.filter(mine).map((o) => ({ o, tx })));
    assert.equal(spent.length, expectSpent.length);
    for (const { o, tx } of expectSpent) {
      const r = spent.find(
        (s) =>
          s.metadata.transactionId === o.outputId.slice(0, 66) &&
          iota.TransactionHelper.outputIdFromTransactionData(s.metadata.transactionId, s.metadata.outputIndex) ===
            o.outputId,
      );
      assert.ok(r, `${o.outputId} spent by ${tx.label}`);
      assert.equal(r.metadata.transactionIdSpent, tx.transactionId);
      assert.equal(r.metadata.milestoneIndexSpent, tx.milestoneIndex);
      assert.deepEqual(withoutLedgerIndex(r), withoutLedgerIndex(plain(await client.output(o.outputId))));
    }

    // outputs/unlock/+/{dev}: once per output created that names the dev address in any condition
    // (an alias names it as state controller and governor: still one message)
    const any = events.on(`outputs/unlock/+/${dev.bech32}`);
    const namesDev = (o: OwnedOutput) =>
      (o.output.unlockConditions as Json[]).some((u) => u.address?.pubKeyHash === dev.pubKeyHash);
    const createdForDev = confirmed.flatMap((tx) => tx.created).filter(namesDev);
    assert.ok(
      createdForDev.some((o) => o.output.type === 4),
      "an alias among them",
    );
    assert.deepEqual(
      any
        .map((r) =>
          iota.TransactionHelper.outputIdFromTransactionData(r.metadata.transactionId, r.metadata.outputIndex),
        )
        .sort(),
      createdForDev.map((o) => o.outputId).sort(),
    );

    // tagged data: the wallet's transaction blocks on their tag's topic, nothing on the others
    const tagged = events.on<Uint8Array>(`blocks/transaction/tagged-data/${WALLET_TAG_HEX}`);
    const taggedIds = tagged.map((bytes) =>
      iota.TransactionHelper.calculateBlockId(iota.deserializeBlock(new iotaUtil.ReadStream(bytes))),
    );
    assert.deepEqual(taggedIds.sort(), confirmed.map((tx) => tx.blockId).sort());
    assert.equal(events.on(`blocks/tagged-data/${WALLET_TAG_HEX}`).length, 0);
    assert.equal(events.on(`blocks/transaction/tagged-data/${utf8("another tag")}`).length, 0);
  });

  it("the balances iota.js computes match the ledger this wallet kept", async () => {
    // the unspent basic outputs each address holds, by this test's own account
    const unspentBasic = (pubKeyHash: string) =>
      confirmed
        .flatMap((tx) => tx.created)
        .filter((o) => !spentBy.has(o.outputId) && o.output.type === 3)
        .filter((o) => o.output.unlockConditions[0].address.pubKeyHash === pubKeyHash);
    const sum = (outputs: OwnedOutput[]) => outputs.reduce((s, o) => s + BigInt(o.output.amount), 0n);

    const devBalance = await iota.addressBalance(client, dev.bech32);
    const devExpected = TOKEN_SUPPLY - PAYMENT - foundryDeposit - nftDeposit;
    assert.equal(sum(unspentBasic(dev.pubKeyHash)), devExpected);
    assert.equal(devBalance.balance.toString(), devExpected.toString());
    assert.deepEqual(Object.keys(devBalance.nativeTokens), [tokenId]);
    assert.equal(devBalance.nativeTokens[tokenId]!.toString(), MINTED.toString());

    const paid = await iota.addressBalance(client, recipient.bech32);
    assert.equal(sum(unspentBasic(recipient.pubKeyHash)), PAYMENT);
    assert.equal(paid.balance.toString(), PAYMENT.toString());
    assert.deepEqual(paid.nativeTokens, {});
    const listed = await indexer.basicOutputs({ addressBech32: recipient.bech32 });
    assert.deepEqual(listed.items, [confirmed[0]!.created[0]!.outputId]);
  });
});
