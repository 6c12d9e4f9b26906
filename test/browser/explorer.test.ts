import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { type CoreClient, iota, iotaUtil, type Json, utf8 } from "../helpers/iota.js";
import { waitForReferenced } from "../helpers/milestones.js";
import {
  basicOutput,
  DEV_SEED,
  GENESIS_OUTPUT_ID,
  type OwnedOutput,
  StardustWallet,
  type SubmittedTransaction,
  WALLET_TAG,
} from "../helpers/stardustWallet.js";
import { DashboardSession, type WatchedPage } from "./helpers/browser.js";

/**
 * The dashboard's explorer in Chromium against a real dev node process. A wallet built with
 * `@iota/iota.js` (test/e2e/helpers/stardustWallet.ts) pays an address, creates an alias, a
 * foundry minting native tokens, an NFT and an output with every kind of unlock condition and
 * feature, and re-spends the spent genesis (a conflicting transaction); tagged-data blocks make
 * a milestone reference more blocks than a page holds. Then:
 * - the search opens the right page for each kind of ID, and says in words when nothing matches;
 * - each page shows what the REST routes answer (amounts, addresses, spent state, a
 *   milestone's blocks page by page, balances, ledger updates, chains), and its links lead on
 *   (block → parent, output → spending transaction → block);
 * - an output page checks its core/v3 output ID proof in the page and says it verified; a block
 *   page its proof of inclusion (inx-poi's), which it also offers as a JSON file;
 * no console error, no serious axe violation, a screenshot of every page, one at a phone's width.
 */

const PAYMENT = 1_000_000n;
const ALIAS_AMOUNT = 1_000_000n;
const FANCY_AMOUNT = 2_000_000n;
const MINTED = 1000n;
const TAG = "explorer tag";
/** The explorer's page sizes (web/src/pages/explorer/Milestone.tsx, Address.tsx). */
const MILESTONE_BLOCKS_PAGE_SIZE = 20;
const ADDRESS_PAGE_SIZE = 10;
/** ConflictReason.InputUtxoAlreadySpent (src/ledger/conflictReason.ts). */
const INPUT_ALREADY_SPENT = 1;
/** The foundry's IRC-30 metadata (TIP-30): 1000 base units are "10 EXT". */
const IRC30 = { standard: "IRC30", name: "Explorer Token", symbol: "EXT", decimals: 2 };
/** A 1x1 PNG as a data: URL, which the dashboard's CSP lets images come from. */
const PNG_DATA_URL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
/** The NFT's IRC-27 metadata (TIP-27), its image inline. */
const IRC27 = {
  standard: "IRC27",
  version: "v1.0",
  type: "image/png",
  uri: PNG_DATA_URL,
  name: "ledger-node explorer NFT #1",
  collectionName: "ledger-node explorer collection",
  description: "the explorer test's NFT",
};
/** Markup in an NFT's name: the page must show it as text and run none of it. */
const HOSTILE_NAME = "<img src=x onerror=window.__pwned=1><script>window.__pwned=1</script>";

describe("the dashboard's explorer in a browser", { timeout: 150_000 }, () => {
  let s: DashboardSession;
  let client: CoreClient;
  let dev: StardustWallet;
  let recipient: StardustWallet;
  let payment: SubmittedTransaction;
  let createAlias: SubmittedTransaction;
  let mint: SubmittedTransaction;
  let nftMint: SubmittedTransaction;
  let conflictingBlockId = "";
  let taggedBlockId = "";
  let aliasId = "";
  let nftId = "";
  let tokenId = "";
  /** A milestone that referenced more blocks than one page of the milestone page holds. */
  let busyMilestone = 0;

  const json = (path: string) => s.node.json(path);
  const submit = (label: string, inputs: OwnedOutput[], outputs: Json[]) =>
    dev.sendConfirmed(label, inputs, outputs, 15_000);
  /** Submits a tagged-data block (the node fills parents and nonce) and answers its ID. */
  const taggedDataBlock = async (data: string): Promise<string> => {
    const res = await fetch(`${s.node.url}/api/core/v2/blocks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        protocolVersion: 2,
        payload: { type: 5, tag: utf8("explorer paging"), data: utf8(data) },
      }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { blockId: string }).blockId;
  };

  before(async () => {
    s = await DashboardSession.start("explorer", ["--milestone-interval", "500"]);
    client = new iota.SingleNodeClient(s.node.url);
    dev = await StardustWallet.open(client, DEV_SEED);
    recipient = await StardustWallet.fromPhrase(client, "ledger-node explorer recipient");

    // 1. a payment from the genesis
    const genesis = await dev.genesis();
    const supply = BigInt(genesis.output.amount);
    payment = await submit(
      "payment",
      [genesis],
      [basicOutput(recipient.address, PAYMENT), basicOutput(dev.address, supply - PAYMENT)],
    );

    // 2. an alias (zero ID: its ID is the hash of its first output ID)
    const alias0 = dev.aliasOutput(ALIAS_AMOUNT);
    const funds = payment.created[1]!;
    createAlias = await submit(
      "create alias",
      [funds],
      [alias0, basicOutput(dev.address, BigInt(funds.output.amount) - ALIAS_AMOUNT)],
    );
    aliasId = iota.TransactionHelper.resolveIdFromOutputId(createAlias.created[0]!.outputId);

    // 3. a foundry on the alias, minting native tokens
    tokenId = iota.TransactionHelper.constructTokenId(aliasId, 1, 0);
    const foundry = dev.foundryOutput(aliasId, 1, MINTED, JSON.stringify(IRC30));
    const rest = createAlias.created[1]!;
    mint = await submit(
      "create foundry and mint",
      [createAlias.created[0]!, rest],
      [
        { ...alias0, aliasId, stateIndex: 1, foundryCounter: 1 },
        foundry,
        basicOutput(dev.address, BigInt(rest.output.amount) - BigInt(foundry.amount), [
          { id: tokenId, amount: `0x${MINTED.toString(16)}` },
        ]),
      ],
    );

    // 4. an NFT with a tag, and an output with every unlock condition and feature a basic output takes
    const nft = dev.nftOutput(JSON.stringify(IRC27), [{ type: 3, tag: utf8(TAG) }]);
    const now = Math.floor(Date.now() / 1000);
    const fancy: Json = {
      type: 3,
      amount: FANCY_AMOUNT.toString(),
      unlockConditions: [
        { type: 0, address: recipient.address },
        { type: 1, returnAddress: dev.address, amount: PAYMENT.toString() },
        { type: 2, unixTime: now - 3600 },
        { type: 3, returnAddress: dev.address, unixTime: now + 30 * 86_400 },
      ],
      features: [
        { type: 0, address: dev.address },
        { type: 2, data: utf8("explorer metadata") },
        { type: 3, tag: utf8(TAG) },
      ],
    };
    const withTokens = mint.created[2]!;
    nftMint = await submit(
      "mint NFT",
      [withTokens],
      [
        nft,
        fancy,
        basicOutput(
          dev.address,
          BigInt(withTokens.output.amount) - BigInt(nft.amount) - FANCY_AMOUNT,
          withTokens.output.nativeTokens,
        ),
      ],
    );
    nftId = iota.TransactionHelper.resolveIdFromOutputId(nftMint.created[0]!.outputId);

    // 5. the genesis spent again: referenced, conflicting
    conflictingBlockId = (await dev.send("spend the genesis again", [genesis], [basicOutput(dev.address, supply)]))
      .blockId;
    await waitForReferenced(client, conflictingBlockId, 15_000, "the conflicting transaction referenced");

    // 6. tagged-data blocks until one milestone references more than a page of blocks (8 at a
    // time: the node mines at most --pow-queue blocks at once)
    for (let round = 0; round < 4 && busyMilestone === 0; round++) {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        ids.push(
          ...(await Promise.all(Array.from({ length: 8 }, (_, j) => taggedDataBlock(`block ${round}.${i}.${j}`)))),
        );
      }
      taggedBlockId ||= ids[0]!;
      const indexes = new Set<number>();
      for (const id of ids) {
        indexes.add((await waitForReferenced(client, id, 15_000, `block ${id} referenced`)).referencedByMilestoneIndex);
      }
      for (const index of indexes) {
        const all = await json(`/api/explorer/v2/milestones/by-index/${index}/blocks?pageSize=1000`);
        if (all.blocks.length > MILESTONE_BLOCKS_PAGE_SIZE + 2) busyMilestone = index;
      }
    }
    assert.ok(busyMilestone > 0, "a milestone referenced more blocks than a page holds");
  });
  after(async () => {
    await s?.close();
  });

  /** The search box of the explorer's page: types `text` and searches. */
  const search = async (p: WatchedPage, text: string) => {
    const box = p.page.getByLabel("Search the ledger");
    await box.fill(text);
    await p.page.getByRole("button", { name: "Search", exact: true }).click();
  };
  const explorerUrl = (path: string) => `${s.node.url}/dashboard/explorer/${path}`;
  /** The value of attribute `name` of the first element `selector` matches, once it is there. */
  const attr = async (p: WatchedPage, selector: string, name: string) => {
    const el = p.page.locator(selector).first();
    await el.waitFor();
    return el.getAttribute(name);
  };
  /** The alias's own address (type 8) as bech32, as iota.js writes it. */
  const aliasBech32 = async () =>
    iota.Bech32Helper.toBech32(8, iotaUtil.Converter.hexToBytes(aliasId), (await client.info()).protocol.bech32Hrp);
  const texts = (p: WatchedPage, selector: string, name: string) =>
    p.page.locator(selector).evaluateAll((els, n) => els.map((e) => e.getAttribute(n as string)), name);

  it("the search opens the page of every kind of ID, and says in words when nothing matches", async () => {
    const p = await s.newPage();
    // the search asks the routes in turn whether they know an ID: the ones that do not answer 404
    p.expectFailedLoads(
      404,
      /\/api\/(core\/v2\/(blocks\/0x[0-9a-f]{64}\/metadata|milestones\/(0x[0-9a-f]{64}|by-index\/[0-9]+)|transactions\/0x[0-9a-f]{64}\/included-block\/metadata)|indexer\/v1\/outputs\/(alias|nft)\/0x[0-9a-f]{64})$/,
    );
    await p.goto("/dashboard/explorer");
    await p.page.locator("[data-latest-milestones] li").first().waitFor();
    await p.check("explorer-search");

    const milestone = await client.milestoneByIndex(payment.milestoneIndex!);
    const milestoneId = iota.milestoneIdFromMilestonePayload(milestone);
    const cases: [string, string][] = [
      [payment.blockId, `block/${payment.blockId}`],
      [payment.transactionId, `transaction/${payment.transactionId}`],
      [payment.created[0]!.outputId, `output/${payment.created[0]!.outputId}`],
      [String(payment.milestoneIndex), `milestone/${payment.milestoneIndex}`],
      [milestoneId, `milestone/${payment.milestoneIndex}`],
      [recipient.bech32, `address/${recipient.bech32}`],
      [aliasId, `alias/${aliasId}`],
      [nftId, `nft/${nftId}`],
      [tokenId, `foundry/${tokenId}`],
      [TAG, `tag/${utf8(TAG)}`],
    ];
    for (const [text, path] of cases) {
      await p.goto("/dashboard/explorer");
      await search(p, text);
      await p.page.waitForURL(explorerUrl(path), { timeout: 10_000 });
      await p.page.locator("[data-page-id], h1").first().waitFor();
    }

    await p.goto("/dashboard/explorer");
    const message = p.page.locator("[data-search-message]");
    await search(p, "no such thing anywhere");
    assert.match(await message.innerText(), /^Nothing found for "no such thing anywhere": it is no ID or address/);
    await search(p, `0x${"ab".repeat(32)}`);
    await message.getByText(/^Nothing has the ID 0xabab/).waitFor();
    await search(p, "tst1qqqqqqqq");
    await message.getByText(/is not a valid bech32 address/).waitFor();
    await search(p, "99999999");
    await message.getByText("There is no milestone 99999999 on this node (not issued yet, or pruned).").waitFor();
    assert.equal(p.page.url(), explorerUrl("").slice(0, -1), "a failed search stays on the search page");
    await p.check("explorer-search-not-found");
  });

  it("a search sent before the node's info loaded waits for it instead of failing", async () => {
    const p = await s.newPage();
    // the page's info answers late, as from a slow node: the search is sent before it is there
    await p.page.route("**/api/core/v2/info", async (r) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await r.continue().catch(() => {});
    });
    await p.goto("/dashboard/explorer");
    await search(p, String(payment.milestoneIndex));
    await p.page.waitForURL(explorerUrl(`milestone/${payment.milestoneIndex}`), { timeout: 10_000 });
    assert.equal(await p.page.locator("[data-search-message]").count(), 0, "no message under the box");
  });

  it("block page: the transaction decoded and named, metadata as REST has it, parents and children as links", async () => {
    const p = await s.newPage();
    await p.goto(`/dashboard/explorer/block/${payment.blockId}`);
    const meta = await client.blockMetadata(payment.blockId);
    const block = await client.block(payment.blockId);
    // the transaction ID is hashed in the page from the block's bytes
    assert.equal(
      await attr(p, '[data-fact="transaction-id"] [data-link="transaction"]', "data-id"),
      payment.transactionId,
    );
    assert.equal(
      await attr(p, '[data-fact="referenced-by"] [data-link="milestone"]', "data-id"),
      String(meta.referencedByMilestoneIndex),
    );
    assert.match(await p.page.locator('[data-fact="inclusion"]').innerText(), /^included/);
    assert.deepEqual(await texts(p, "[data-outputs] [data-link=output]", "data-id"), [
      payment.created[0]!.outputId,
      payment.created[1]!.outputId,
    ]);
    assert.deepEqual(await texts(p, "[data-inputs] [data-link=output]", "data-id"), [GENESIS_OUTPUT_ID]);
    assert.deepEqual(await texts(p, "[data-parents] [data-link=block]", "data-id"), block.parents);
    await p.page.locator('[data-fact="tag"] [data-bytes="text"]').getByText(WALLET_TAG).waitFor();
    // its proof of inclusion (inx-poi's format): checked in the page, and saved as a JSON file
    await p.page.locator('#block-proof [data-proof="verified"]').waitFor({ timeout: 15_000 });
    assert.equal(await p.page.locator('#block-proof [data-check="failed"]').count(), 0);
    assert.equal(
      await attr(p, '[data-fact="proof-milestone"] [data-link="milestone"]', "data-id"),
      String(meta.referencedByMilestoneIndex),
    );
    const link = p.page.locator("[data-proof-download]");
    assert.equal(await link.getAttribute("download"), `proof-of-inclusion-${payment.blockId}.json`);
    const [download] = await Promise.all([p.page.waitForEvent("download"), link.click()]);
    const saved = JSON.parse(await readFile((await download.path())!, "utf8"));
    assert.deepEqual(saved, await json(`/api/poi/v1/create/${payment.blockId}`));
    const checked = await fetch(`${s.node.url}/api/poi/v1/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(saved),
    });
    assert.deepEqual(await checked.json(), { valid: true });
    await p.check("explorer-block");

    // block → parent: the parent lists this block among its children
    const parent = block.parents[0] as string;
    await p.page.locator(`[data-parents] [data-id="${parent}"]`).click();
    await p.page.waitForURL(explorerUrl(`block/${parent}`));
    await p.page.locator(`[data-children] [data-id="${payment.blockId}"]`).waitFor();
    await p.check("explorer-block-parent");

    // a conflicting transaction: its reason in words
    await p.goto(`/dashboard/explorer/block/${conflictingBlockId}`);
    const reason = p.page.locator('[data-fact="conflict-reason"] [data-conflict-reason]');
    await reason.waitFor();
    assert.equal((await client.blockMetadata(conflictingBlockId)).conflictReason, INPUT_ALREADY_SPENT);
    assert.equal(await reason.getAttribute("data-conflict-reason"), String(INPUT_ALREADY_SPENT));
    assert.equal(await reason.innerText(), "an input was already spent by an earlier milestone");
    assert.match(await p.page.locator('[data-fact="inclusion"]').innerText(), /^conflicting/);
    // a conflicting block is in its milestone's inclusion Merkle tree too (TIP-4)
    await p.page.locator('#block-proof [data-proof="verified"]').waitFor({ timeout: 15_000 });
    await p.check("explorer-block-conflicting");

    // tagged data: tag and data as text
    await p.goto(`/dashboard/explorer/block/${taggedBlockId}`);
    await p.page.locator('[data-fact="tag"] [data-bytes="text"]').getByText("explorer paging").waitFor();
    await p.page
      .locator('[data-fact="data"] [data-bytes="text"]')
      .getByText(/^block \d/)
      .waitFor();
    await p.check("explorer-block-tagged-data");
  });

  it("output page: fields in words, spent state as REST has it, proof verified; output → spending transaction → block", async () => {
    const p = await s.newPage();
    // the payment's output to the recipient: unspent
    const paid = payment.created[0]!.outputId;
    await p.goto(`/dashboard/explorer/output/${paid}`);
    const rest = await client.output(paid);
    await p.page.locator('[data-proof="verified"]').waitFor({ timeout: 15_000 });
    assert.equal(
      await p.page.locator('[data-proof="verified"]').innerText(),
      "Proof verified: this output ID commits to these bytes.",
    );
    assert.equal(await p.page.locator('[data-check="failed"]').count(), 0);
    assert.equal(await attr(p, '[data-fact="amount"] [data-amount]', "data-amount"), rest.output.amount);
    assert.equal(await attr(p, '[data-fact="uc-address-0"] [data-link="address"]', "data-id"), recipient.bech32);
    assert.equal(await attr(p, "[data-spent]", "data-spent"), String(rest.metadata.isSpent));
    assert.equal(rest.metadata.isSpent, false);
    await p.check("explorer-output");

    // a proof the page is handed altered fails, with the check that failed in words
    const tampered = async (name: string, alter: (full: Json) => void, words: string) => {
      const t = await s.newPage();
      await t.page.route("**/api/core/v3/outputs/*/full", async (route) => {
        const res = await route.fetch();
        const full = (await res.json()) as Json;
        alter(full);
        await route.fulfill({ response: res, json: full });
      });
      await t.goto(`/dashboard/explorer/output/${paid}`);
      const failed = t.page.locator('[data-proof="failed"]');
      await failed.waitFor({ timeout: 15_000 });
      assert.equal(await failed.innerText(), `Proof not verified: ${words}.`);
      assert.equal(await t.page.locator('[data-proof="verified"]').count(), 0);
      await t.check(name);
    };
    await tampered(
      "explorer-output-proof-commitment-altered",
      (full) => {
        full.outputIdProof.transactionCommitment = `0x${"11".repeat(32)}`;
      },
      "the commitment differs from the hash of the transaction's essence",
    );
    await tampered(
      "explorer-output-proof-sibling-altered",
      (full) => {
        // output 0 of 2: its leaf on the left, the other output's leaf hash on the right
        assert.equal(full.outputIdProof.outputCommitmentProof.r.type, 1);
        full.outputIdProof.outputCommitmentProof.r.hash = `0x${"22".repeat(32)}`;
      },
      "the proof's root is not the Merkle root of the transaction's outputs",
    );

    // every unlock condition and feature of a basic output, in words
    const fancy = nftMint.created[1]!.outputId;
    await p.goto(`/dashboard/explorer/output/${fancy}`);
    await p.page.locator('[data-proof="verified"]').waitFor({ timeout: 15_000 });
    const fact = (key: string) => p.page.locator(`[data-fact="${key}"]`).innerText();
    assert.match(await fact("uc-storage-deposit-return-1"), /must go back to tst1.* when this output is spent/);
    assert.equal(await attr(p, '[data-fact="uc-storage-deposit-return-1"] [data-amount]', "data-amount"), "1000000");
    assert.match(await fact("uc-timelock-2"), /^Cannot be spent before .* \(passed/);
    assert.match(await fact("uc-expiration-3"), /^From .* \(still ahead\) only tst1.* can spend it$/);
    assert.equal(await attr(p, '[data-fact="sender-0"] [data-link="address"]', "data-id"), dev.bech32);
    assert.match(await fact("metadata-1"), /explorer metadata/);
    assert.match(await fact("tag-2"), /explorer tag/);
    await p.check("explorer-output-conditions");

    // the alias's first output: spent by the minting transaction; follow it to its block
    const aliasOutput = createAlias.created[0]!.outputId;
    await p.goto(`/dashboard/explorer/output/${aliasOutput}`);
    await p.page.locator('[data-proof="verified"]').waitFor({ timeout: 15_000 });
    const spent = await client.outputMetadata(aliasOutput);
    assert.equal(spent.isSpent, true);
    assert.equal(await attr(p, "[data-spent]", "data-spent"), "true");
    assert.match(await fact("uc-state-controller-0"), /^tst1/);
    assert.match(await fact("uc-governor-1"), /^tst1/);
    assert.equal(await attr(p, '[data-fact="immutable-issuer-0"] [data-link="address"]', "data-id"), dev.bech32);
    // the alias ID is hashed in the page from the output ID (its output holds the zero ID)
    assert.equal(await attr(p, '[data-fact="alias-id"] [data-link="alias"]', "data-id"), aliasId);
    await p.page.locator(`[data-spent] [data-id="${spent.transactionIdSpent}"]`).click();
    await p.page.waitForURL(explorerUrl(`transaction/${mint.transactionId}`));
    const included = await json(`/api/core/v2/transactions/${mint.transactionId}/included-block/metadata`);
    const blockLink = p.page.locator('[data-fact="included-block"] [data-link="block"]');
    await blockLink.waitFor();
    assert.equal(await blockLink.getAttribute("data-id"), included.blockId);
    assert.deepEqual(
      await texts(p, "[data-inputs] [data-link=output]", "data-id"),
      mint.inputs.map((i) => i.outputId),
    );
    assert.deepEqual(
      await texts(p, "[data-outputs] [data-output-row]", "data-output-row"),
      mint.created.map((o) => o.outputId),
    );
    await p.check("explorer-transaction");
    await blockLink.click();
    await p.page.waitForURL(explorerUrl(`block/${mint.blockId}`));
    await p.page.locator('[data-fact="transaction-id"] [data-link="transaction"]').waitFor();

    // the genesis output: no transaction, the genesis form of the proof
    await p.goto(`/dashboard/explorer/output/${GENESIS_OUTPUT_ID}`);
    await p.page.locator('[data-proof="verified"]').waitFor({ timeout: 15_000 });
    await p.page.getByText("No transaction created this output (genesis)", { exact: false }).waitFor();

    // at a phone's width: nothing wider than the screen
    const phone = await s.newIsolatedPage();
    await phone.goto(`/dashboard/explorer/output/${fancy}`);
    await phone.page.locator('[data-proof="verified"]').waitFor({ timeout: 15_000 });
    assert.ok(
      await phone.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"),
      "the page fits the phone's width",
    );
    await phone.check("explorer-output-phone");
  });

  it("milestone page: its referenced blocks in white-flag order, page by page, and its transactions", async () => {
    const p = await s.newPage();
    await p.goto(`/dashboard/explorer/milestone/${busyMilestone}`);
    const rows = () => texts(p, "[data-milestone-blocks] [data-block]", "data-block");
    const restPage = (cursor?: string) =>
      json(
        `/api/explorer/v2/milestones/by-index/${busyMilestone}/blocks?${cursor ? `cursor=${cursor}` : `pageSize=${MILESTONE_BLOCKS_PAGE_SIZE}`}`,
      );
    const first = await restPage();
    await p.page.locator('[data-milestone-blocks][data-page="1"]').waitFor();
    assert.deepEqual(
      await rows(),
      first.blocks.map((b: Json) => b.blockId),
    );
    assert.ok(first.cursor, "more than one page");
    const milestoneId = iota.milestoneIdFromMilestonePayload(await client.milestoneByIndex(busyMilestone));
    await p.page.locator('[data-fact="milestone-id"]').getByText(milestoneId).waitFor();
    await p.check("explorer-milestone");

    await p.page.getByRole("button", { name: "Next page" }).click();
    await p.page.locator('[data-milestone-blocks][data-page="2"]').waitFor();
    const second = await restPage(first.cursor);
    assert.deepEqual(
      await rows(),
      second.blocks.map((b: Json) => b.blockId),
    );
    await p.page.getByRole("button", { name: "Previous page" }).click();
    await p.page.locator('[data-milestone-blocks][data-page="1"]').waitFor();
    assert.deepEqual(
      await rows(),
      first.blocks.map((b: Json) => b.blockId),
    );

    // by ID: the page moves to the index; the payment's milestone lists its transaction
    const paymentMilestoneId = iota.milestoneIdFromMilestonePayload(
      await client.milestoneByIndex(payment.milestoneIndex!),
    );
    await p.goto(`/dashboard/explorer/milestone/${paymentMilestoneId}`);
    await p.page.waitForURL(explorerUrl(`milestone/${payment.milestoneIndex}`));
    await p.page.locator(`[data-transactions] [data-id="${payment.transactionId}"]`).waitFor();
    assert.equal(
      await attr(p, '[data-link="previous-milestone"]', "href"),
      `/dashboard/explorer/milestone/${payment.milestoneIndex! - 1}`,
    );
    await p.page.locator('[data-link="next-milestone"]').click();
    // at a phone's width the table of blocks scrolls within its region, the page does not
    const phone = await s.newIsolatedPage();
    await phone.goto(`/dashboard/explorer/milestone/${busyMilestone}`);
    await phone.page.locator("[data-milestone-blocks] [data-block]").first().waitFor();
    assert.ok(await phone.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"));
    await phone.check("explorer-milestone-phone");
    await p.page.waitForURL(explorerUrl(`milestone/${payment.milestoneIndex! + 1}`));
    await p.page.getByRole("heading", { level: 1, name: `Milestone ${payment.milestoneIndex! + 1}` }).waitFor();
  });

  it("address page: balances, native tokens, NFTs and aliases as the indexer has them, ledger updates page by page", async () => {
    const p = await s.newPage();
    await p.goto(`/dashboard/explorer/address/${dev.bech32}`);
    const balance = await json(`/api/explorer/v2/balance/${dev.bech32}`);
    assert.equal(await attr(p, '[data-fact="total-balance"] [data-amount]', "data-amount"), balance.totalBalance);
    assert.equal(
      await attr(p, '[data-fact="available-balance"] [data-amount]', "data-amount"),
      balance.availableBalance,
    );
    assert.equal(await attr(p, `#address-tokens [data-token="${tokenId}"]`, "data-token-amount"), MINTED.toString());
    // the amount in the token's units (IRC-30 decimals) with its symbol and name
    await p.page.locator(`#address-tokens [data-token="${tokenId}"] [data-token-name]`).waitFor();
    assert.match(
      await p.page.locator(`#address-tokens [data-token="${tokenId}"]`).innerText(),
      /^10 EXT of token Explorer Token 0x08/,
    );
    assert.equal(await attr(p, '[data-chains="nft"] [data-link="nft"]', "data-id"), nftId);
    assert.equal(await attr(p, '[data-chains="alias"] [data-link="alias"]', "data-id"), aliasId);
    const outputs = await json(`/api/indexer/v1/outputs/basic?address=${dev.bech32}&pageSize=${ADDRESS_PAGE_SIZE}`);
    await p.page.locator("[data-address-outputs] [data-output-row]").first().waitFor();
    assert.deepEqual(await texts(p, "[data-address-outputs] [data-output-row]", "data-output-row"), outputs.items);

    const updateRows = () => texts(p, "[data-updates] [data-update]", "data-update");
    const asRows = (page: Json) =>
      (page.items as Json[]).map((u) => `${u.milestoneIndex}.${u.outputId}.${u.isSpent ? 1 : 0}`);
    const first = await json(
      `/api/explorer/v2/ledger/updates/by-address/${dev.bech32}?pageSize=${ADDRESS_PAGE_SIZE}&sort=newest`,
    );
    await p.page.locator('[data-updates][data-page="1"]').waitFor();
    assert.deepEqual(await updateRows(), asRows(first));
    assert.ok(first.cursor, "the dev address has more than a page of updates");
    await p.check("explorer-address");
    await p.page
      .getByRole("navigation", { name: "Pages of ledger updates" })
      .getByRole("button", { name: "Next page" })
      .click();
    await p.page.locator('[data-updates][data-page="2"]').waitFor();
    const second = await json(
      `/api/explorer/v2/ledger/updates/by-address/${dev.bech32}?cursor=${encodeURIComponent(first.cursor)}&sort=newest`,
    );
    assert.deepEqual(await updateRows(), asRows(second));

    // the recipient: its balance counts the output whose expiration is still ahead
    await p.goto(`/dashboard/explorer/address/${recipient.bech32}`);
    const recipientBalance = await json(`/api/explorer/v2/balance/${recipient.bech32}`);
    assert.equal(
      await attr(p, '[data-fact="total-balance"] [data-amount]', "data-amount"),
      recipientBalance.totalBalance,
    );
  });

  it("alias, NFT and foundry pages: the current output as the indexer has it, the alias's history to its creation", async () => {
    const p = await s.newPage();
    await p.goto(`/dashboard/explorer/alias/${aliasId}`);
    const alias = await json(`/api/indexer/v1/outputs/alias/${aliasId}`);
    assert.equal(await attr(p, '[data-fact="current-output"] [data-link="output"]', "data-id"), alias.items[0]);
    assert.equal(alias.items[0], mint.created[0]!.outputId);
    await p.page.locator('[data-history-end="created"]').waitFor({ timeout: 15_000 });
    assert.deepEqual(await texts(p, "[data-history-output]", "data-history-output"), [
      mint.created[0]!.outputId,
      createAlias.created[0]!.outputId,
    ]);
    await p.check("explorer-alias");

    await p.goto(`/dashboard/explorer/nft/${nftId}`);
    const nft = await json(`/api/indexer/v1/outputs/nft/${nftId}`);
    assert.equal(await attr(p, '[data-fact="current-output"] [data-link="output"]', "data-id"), nft.items[0]);
    await p.page.locator('[data-history-end="created"]').waitFor({ timeout: 15_000 });
    assert.match(await p.page.locator('[data-fact="immutable-metadata-1"]').innerText(), /ledger-node explorer NFT/);
    // its IRC-27 metadata in words, and its image (a data: URL, which the CSP allows) loaded
    await p.page.locator('#nft-metadata [data-fact="nft-name"]').waitFor();
    assert.equal(await p.page.locator('[data-fact="nft-name"]').innerText(), IRC27.name);
    assert.equal(await p.page.locator('[data-fact="nft-collection"]').innerText(), IRC27.collectionName);
    assert.equal(await p.page.locator('[data-fact="nft-description"]').innerText(), IRC27.description);
    const image = p.page.locator("img[data-nft-image]");
    await image.waitFor();
    assert.equal(await image.getAttribute("alt"), IRC27.name);
    await p.page.waitForFunction('document.querySelector("img[data-nft-image]").naturalWidth === 1');
    await p.check("explorer-nft");

    await p.goto(`/dashboard/explorer/foundry/${tokenId}`);
    const foundry = await json(`/api/indexer/v1/outputs/foundry/${tokenId}`);
    assert.equal(await attr(p, '[data-fact="current-output"] [data-link="output"]', "data-id"), foundry.items[0]);
    assert.equal(await attr(p, '[data-fact="token-scheme"] [data-minted]', "data-minted"), MINTED.toString());
    // the token's IRC-30 metadata, and the scheme's amounts in its units
    await p.page.locator('#token-metadata [data-fact="token-name"]').waitFor();
    assert.equal(await p.page.locator('[data-fact="token-name"]').innerText(), IRC30.name);
    assert.equal(await p.page.locator('[data-fact="token-symbol"]').innerText(), IRC30.symbol);
    await p.page.locator('[data-fact="token-scheme"] [data-token-scaled="true"]').first().waitFor();
    assert.match(await p.page.locator('[data-fact="token-scheme"]').innerText(), /10 EXT minted, 0 EXT melted/);
    assert.equal(
      await attr(p, '[data-fact="uc-immutable-alias-0"] [data-link="address"]', "data-id"),
      await aliasBech32(),
    );
    await p.page.locator('[data-history-end="created"]').waitFor({ timeout: 15_000 });
    await p.check("explorer-foundry");

    // the tag page: the basic output and the NFT that carry the tag
    await p.goto(`/dashboard/explorer/tag/${utf8(TAG)}`);
    await p.page.locator(`[data-tagged="basic"] [data-output-row="${nftMint.created[1]!.outputId}"]`).waitFor();
    await p.page.locator(`[data-tagged="nft"] [data-output-row="${nftMint.created[0]!.outputId}"]`).waitFor();
    await p.check("explorer-tag");
  });

  it("NFT page: markup in IRC-27 metadata is shown as text, never run; an image from an origin the CSP does not allow is not loaded", async () => {
    const hostile = dev.nftOutput(
      JSON.stringify({
        standard: "IRC27",
        version: "v1.0",
        type: "image/png",
        uri: "https://images.example/nft-2.png",
        name: HOSTILE_NAME,
        description: "<b>not bold</b>",
      }),
    );
    const funds = nftMint.created[2]!;
    const minted = await submit(
      "mint a hostile NFT",
      [funds],
      [
        hostile,
        basicOutput(dev.address, BigInt(funds.output.amount) - BigInt(hostile.amount), funds.output.nativeTokens),
      ],
    );
    const hostileId = iota.TransactionHelper.resolveIdFromOutputId(minted.created[0]!.outputId);
    assert.equal((await json(`/api/irc-metadata/v1/nfts/${hostileId}`)).name, HOSTILE_NAME, "valid IRC-27");

    const p = await s.newPage();
    await p.goto(`/dashboard/explorer/nft/${hostileId}`);
    const name = p.page.locator('#nft-metadata [data-fact="nft-name"]');
    await name.waitFor();
    assert.equal(await name.innerText(), HOSTILE_NAME, "the markup as literal text");
    assert.equal(await p.page.locator('[data-fact="nft-description"]').innerText(), "<b>not bold</b>");
    await p.page.getByText(HOSTILE_NAME, { exact: true }).first().waitFor();
    assert.equal(await p.page.locator("#nft-metadata img, #nft-metadata script, #nft-metadata b").count(), 0);
    assert.equal(await p.page.evaluate("typeof window.__pwned"), "undefined", "no script of the metadata ran");
    // the image's URI is a link, but the CSP allows no images from its origin: none is asked for
    assert.equal(await attr(p, "[data-nft-uri]", "href"), "https://images.example/nft-2.png");
    await p.page.waitForTimeout(200);
    assert.equal(await p.page.locator("img[data-nft-image]").count(), 0);
    await p.check("explorer-nft-hostile");
  });
});
