import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { HORNET_DELTA, HORNET_FULL, HORNET_SUPPLY, networkFileFor, startupLine } from "../helpers/hornetSnapshots.js";
import { removeDir, tempDir } from "../helpers/node.js";
import { DashboardSession } from "./helpers/browser.js";

/**
 * The dashboard's home page shows the treasury (TIP-34) of a node started from Hornet's test
 * snapshots (`--snapshot-unverified`): the token supply less the 40,000,000 that milestone 5's
 * receipt and the outputs before it hold, as `GET /api/core/v2/treasury` answers it. A dev
 * node's home page (treasury 0) shows no such figure: `dashboard.test.ts` covers that page.
 */

const digits = (text: string): bigint => BigInt(text.replace(/[^0-9]/g, ""));

describe("the dashboard's treasury figure", { timeout: 60_000 }, () => {
  let s: DashboardSession;
  let work: string;

  before(async () => {
    work = await tempDir("treasury-dashboard");
    const network = await networkFileFor(HORNET_FULL, join(work, "alphanet1.json"));
    s = await DashboardSession.start(
      "treasury",
      [
        "--network-config",
        network,
        "--snapshot",
        HORNET_FULL,
        "--delta-snapshot",
        HORNET_DELTA,
        "--snapshot-unverified",
      ],
      startupLine,
    );
  });
  after(async () => {
    await s?.close();
    await removeDir(work);
  });

  it("Home: the treasury the snapshot left, as the treasury route answers it", async () => {
    const p = await s.newPage();
    // a follower of a network without a coordinator: the dev clock route is not there
    p.expectFailedLoads(404, /\/api\/dev\/v1\/time/);
    await p.goto("/dashboard");
    await p.page.locator('[data-stat="treasury"]').waitFor();
    const shown = await p.stat("treasury");
    const answered = (await s.node.json("/api/core/v2/treasury")) as { amount: string };
    assert.equal(BigInt(answered.amount), HORNET_SUPPLY - 40_000_000n);
    // in the token's unit (6 decimals: 2,779,530,243.277761 DEV), every digit shown
    const info = await s.node.info();
    assert.ok(shown.endsWith(` ${info.baseToken.unit}`), shown);
    assert.equal(digits(shown), BigInt(answered.amount));
    await p.check("home-treasury");
  });
});
