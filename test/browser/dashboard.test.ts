import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { bech32Encode } from "../../src/crypto/bech32.js";
import type { Json } from "../helpers/iota.js";
import { waitForMilestone } from "../helpers/milestones.js";
import { NodeProcess } from "../helpers/nodeProcess.js";
import { waitFor } from "../helpers/waitFor.js";
import { DashboardSession } from "./helpers/browser.js";

/**
 * The dashboard's Home, Peers and Faucet pages in Chromium against a real dev node process
 * (the coordinator, running the dev faucet), one milestone a second:
 * - Home shows the milestones `/api/core/v2/info` answers and a newly confirmed milestone
 *   within two milestone intervals, the process's figures and live charts;
 * - Peers takes a JWT from the `jwt` command, adds a second node process as a peer by its
 *   multiaddr and lists it connected as a static peer, then removes it;
 * - Faucet asks for funds for a fresh address and shows its balance change.
 * - Spammer takes the JWT, starts the spammer at 20 blocks/s and shows the rate it reaches (its
 *   figures and its chart's legend), then stops it.
 * - Home shows the node's clock once time travel (`POST /api/dev/v1/time`) moved it ahead.
 * Every page: no console error, no serious axe violation, a screenshot.
 */

const INTERVAL_MS = 1000;

/** The digits of a formatted number ("1,234" → 1234). */
const digits = (text: string): number => Number(text.replace(/[^0-9]/g, ""));

describe("the dashboard's pages in a browser", { timeout: 110_000 }, () => {
  let s: DashboardSession;

  before(async () => {
    s = await DashboardSession.start("dashboard", ["--milestone-interval", String(INTERVAL_MS)]);
  });
  after(async () => {
    await s?.close();
  });

  it("Home: the info route's milestones, a new confirmed milestone within two intervals, the process, live charts", async () => {
    const p = await s.newPage();
    await p.goto("/dashboard");
    const confirmedStat = p.page.locator('[data-stat="confirmed-milestone"]');
    await confirmedStat.waitFor();

    // the page's numbers lie between two reads of the info route around them
    const before = (await s.node.info()) as Json;
    const shown = {
      confirmed: digits(await p.stat("confirmed-milestone")),
      latest: digits(await p.stat("latest-milestone")),
    };
    const afterInfo = (await s.node.info()) as Json;
    assert.ok(
      shown.confirmed >= before.status.confirmedMilestone.index - 1 &&
        shown.confirmed <= afterInfo.status.confirmedMilestone.index,
      `${shown.confirmed} vs ${before.status.confirmedMilestone.index}..${afterInfo.status.confirmedMilestone.index}`,
    );
    assert.ok(
      shown.latest >= before.status.latestMilestone.index - 1 && shown.latest <= afterInfo.status.latestMilestone.index,
    );
    assert.equal(digits(await p.stat("pruning-index")), afterInfo.status.pruningIndex);
    assert.equal(await p.stat("network"), afterInfo.protocol.networkName);
    assert.equal(await p.stat("synced"), "yes");
    // the page follows the node: once the info route is past what was shown, the page is too
    const next = afterInfo.status.confirmedMilestone.index + 1;
    await waitForMilestone(s.node, next, 5_000, "a milestone");
    await waitFor(
      async () => (digits(await p.stat("confirmed-milestone")) >= next ? true : undefined),
      5_000,
      `milestone ${next} on the page`,
    );

    // the feed: the newest confirmed milestone, then the next one within two intervals
    const first = p.page.locator("[data-milestone]").first();
    await first.waitFor();
    const newest = Number(await first.getAttribute("data-milestone"));
    const seenAt = Date.now();
    await p.page.locator(`[data-milestone="${newest + 1}"]`).waitFor({ timeout: 2 * INTERVAL_MS });
    assert.ok(Date.now() - seenAt <= 2 * INTERVAL_MS, `${Date.now() - seenAt} ms`);
    const item = p.page.locator(`[data-milestone="${newest + 1}"]`);
    assert.equal(await item.locator("[title]").getAttribute("title"), await milestoneId(s.node, newest + 1));

    // the process
    const status = (await s.node.json("/api/dashboard/v1/node")) as Json;
    assert.ok(status.databaseSize > 0);
    await p.page.locator('[data-stat="uptime"]').waitFor();
    assert.match(await p.stat("memory"), /^[0-9.,]+ (MiB|GiB)$/);
    assert.match(await p.stat("database-size"), /^[0-9.,]+ (B|KiB|MiB|GiB)$/);
    assert.match(await p.stat("uptime"), /^(\d+d )?(\d+h )?\d+m \d+s$|^\d+d \d+h \d+m$/);

    // the charts have samples and draw them
    assert.equal(await p.page.locator(".chart canvas").count(), 2);
    await p.page.getByText(/^new blocks: [0-9.,]+ \/s$/).waitFor();
    await p.page.getByText(/^referenced rate: [0-9.,]+ %$/).waitFor();
    await p.check("home");

    const phone = await s.newIsolatedPage();
    await phone.goto("/dashboard");
    await phone.page.locator("[data-milestone]").first().waitFor();
    await phone.check("home-phone");

    // the node's clock is shown once time travel moved it ahead of the wall clock, not before
    assert.equal(await p.page.locator('[data-stat="node-clock"]').count(), 0);
    const moved = await fetch(`${s.node.url}/api/dev/v1/time`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ increaseSeconds: 7200 }),
    });
    assert.equal(moved.status, 200);
    await p.goto("/dashboard");
    await p.page.locator('[data-stat="node-clock"]').waitFor({ timeout: 10_000 });
    assert.match(await p.stat("node-clock"), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(2h 0m 0s ahead of the wall clock\)$/);
  });

  it("Peers: signs in with a JWT, adds a second node by its multiaddr, sees it connected, removes it", async () => {
    const b = await NodeProcess.follower("dashboard-peer", s.node, [], ["--milestone-interval", String(INTERVAL_MS)]);
    try {
      b.start();
      const addressB = await b.address();
      const idB = (await b.info()).network.peerId as string;

      const p = await s.newPage();
      await p.goto("/dashboard/peers");
      const jwt = p.page.getByLabel("JWT");
      await jwt.waitFor();
      await p.check("peers-sign-in");
      await jwt.fill(s.node.token());
      await p.page.getByRole("button", { name: "Sign in" }).click();

      const multiaddr = p.page.getByLabel("Multiaddr");
      await multiaddr.waitFor();
      await multiaddr.fill(addressB);
      await p.page.getByLabel("Alias (optional)").fill("second node");
      await p.page.getByRole("button", { name: "Add peer" }).click();
      await p.page
        .locator("[data-notice]")
        .getByText(/^Added peer second node/)
        .waitFor();
      // B may have dialled in already (its network.json lists this node): the row is then
      // there before the add, and turns static with its alias at the page's next refresh
      const row = p.page.locator(`#peers-connected [data-peer-id="${idB}"]`);
      await waitFor(
        async () => {
          const text = (await row.allInnerTexts()).join("\n");
          return /second node/.test(text) && /static/.test(text) ? true : undefined;
        },
        20_000,
        'B listed as the static peer "second node"',
      );
      await p.check("peers");

      // the token stays for the tab: a reload shows the list at once
      await p.page.reload();
      await row.waitFor();
      await p.page.getByRole("button", { name: "Remove peer second node" }).click();
      await p.page.locator("[data-notice]").getByText("Removed peer second node.").waitFor();
      // the node forgets the static peer (the second node, which learnt this node's address from
      // the connection, may dial in again: it is then listed as such, not as a static peer)
      const token = s.node.token();
      const staticB = async () => {
        const res = await fetch(`${s.node.url}/api/core/v2/peers`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.status, 200);
        return ((await res.json()) as Json[]).some((x) => x.id === idB && x.relation === "known");
      };
      assert.equal(await staticB(), false, "no longer a static peer of the node");
      // and the page, refreshing its list every 3 s, shows no static peer B
      const anyRowB = p.page.locator(`[data-peer-id="${idB}"]`);
      await waitFor(
        async () => {
          const rows = await anyRowB.allInnerTexts();
          return rows.every((text) => !/\bstatic\b/.test(text)) ? true : undefined;
        },
        10_000,
        "the page listing no static peer B",
      );
      await p.check("peers-removed");
    } finally {
      await b.dispose();
    }
  });

  it("Faucet: requests funds for a fresh address and sees its balance change", async () => {
    const address = bech32Encode("tst", new Uint8Array([0, ...randomBytes(32)]));
    const p = await s.newPage();
    await p.goto("/dashboard/faucet");
    await p.page.locator('[data-stat="faucet-address"]').waitFor();
    const info = (await s.node.json("/api/faucet/v1/info")) as Json;
    assert.equal(await p.stat("faucet-address"), info.address);
    assert.equal(await p.stat("faucet-state"), "ready");
    await p.check("faucet");

    await p.page.getByLabel("Address").fill(address);
    await p.page.getByRole("button", { name: "Request tokens" }).click();
    await p.page.locator("[data-queued]").waitFor();
    await p.page.locator('[data-phase="paid"]').waitFor({ timeout: 20_000 });
    const balance = (await s.node.json(`/api/explorer/v2/balance/${address}`)) as Json;
    assert.ok(BigInt(balance.totalBalance) > 0n);
    assert.equal(digits(await p.stat("balance-before")), 0);
    assert.ok(digits(await p.stat("balance-now")) > 0);
    await p.check("faucet-paid");
  });

  it("Spammer: signs in, starts the spammer, shows the rate it reaches, stops it", async () => {
    const p = await s.newPage();
    await p.goto("/dashboard/spammer");
    const jwt = p.page.getByLabel("JWT");
    await jwt.waitFor();
    await jwt.fill(s.node.token());
    await p.page.getByRole("button", { name: "Sign in" }).click();
    await p.page.locator('[data-stat="spammer-state"]').waitFor();
    assert.equal(await p.stat("spammer-state"), "stopped");

    await p.page.getByLabel("Blocks per second", { exact: true }).fill("20");
    await p.page.getByLabel("CPU limit", { exact: true }).fill("1");
    await p.page.getByRole("button", { name: "Start" }).click();
    await waitFor(async () => ((await p.stat("spammer-state")) === "running" ? true : undefined), 5_000, "running");
    // the rate the node reports, on the page and in the chart's legend, once a few seconds are counted
    await waitFor(
      async () => {
        const rate = Number((await p.stat("spammer-rate")).replace(/[^0-9.]/g, ""));
        return rate >= 15 && rate <= 20 ? rate : undefined;
      },
      15_000,
      "a rate of 15 to 20 blocks/s on the page",
    );
    await p.page.getByText(/^reached: (1[5-9]|20)(\.\d)? \/s$/).waitFor({ timeout: 5_000 });
    assert.equal(await p.page.locator("#spammer-chart .chart canvas").count(), 1);
    const status = (await (
      await fetch(`${s.node.url}/api/spammer/v1/status`, { headers: { authorization: `Bearer ${s.node.token()}` } })
    ).json()) as Json;
    assert.equal(status.running, true);
    assert.equal(status.bpsRateLimit, 20);
    await p.check("spammer");

    await p.page.getByRole("button", { name: "Stop" }).click();
    await waitFor(async () => ((await p.stat("spammer-state")) === "stopped" ? true : undefined), 5_000, "stopped");
  });
});

/** A milestone's ID as the explorer's listing gives it. */
async function milestoneId(node: NodeProcess, index: number): Promise<string> {
  const ms = (await node.json("/api/explorer/v2/milestones?sort=newest&pageSize=50")) as Json;
  const found = (ms.items as { milestoneId: string; index: number }[]).find((m) => m.index === index);
  assert.ok(found, `milestone ${index} listed`);
  return found.milestoneId;
}
