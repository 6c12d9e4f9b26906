import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import type { Json } from "../helpers/iota.js";
import { waitFor } from "../helpers/waitFor.js";
import { DashboardSession } from "./helpers/browser.js";

/**
 * The dashboard's Live tangle page in Chromium against a real dev node process (the
 * coordinator, one milestone a second): tagged-data blocks submitted over REST appear under the
 * IDs the node gives them (the page computes each ID from the block's bytes on `blocks`), are
 * marked referenced once a milestone references them (`block-metadata/referenced`), a
 * milestone's block is marked as one, Pause freezes the drawing while the counts go on, a click
 * on a milestone's node in the canvas selects it with a link to its explorer page. No console
 * error (the CSP refuses injected styles: the build strips force-graph's), no serious axe
 * violation, a screenshot. Under heavy traffic (a node without PoW taking blocks as fast as a
 * few dozen clients send them) the page samples, says so, and learns which of its blocks are
 * referenced from the few it asks about (`block-metadata/{id}`).
 */

const INTERVAL_MS = 1000;

/** The digits of a formatted number ("1,234" → 1234). */
const digits = (text: string): number => Number(text.replace(/[^0-9]/g, ""));

/** A numeric `data-*` attribute of the tangle's figure. */
async function figure(page: Page, name: string): Promise<number> {
  return Number(await page.locator("figure[data-drawn]").getAttribute(`data-${name}`));
}

/** Waits until a milestone's block is on the Live tangle page (the page is subscribed then). */
async function milestoneShown(page: Page): Promise<void> {
  await page
    .locator('[data-state="milestone"]')
    .first()
    .waitFor({ timeout: 5 * INTERVAL_MS });
}

/** Submits a tagged-data block as JSON (the node fills parents and nonce); its block ID. */
async function submit(url: string): Promise<string> {
  return (await submitBody(url)).blockId as string;
}

async function submitBody(url: string): Promise<Json> {
  const res = await fetch(`${url}/api/core/v2/blocks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      protocolVersion: 2,
      payload: { type: 5, tag: `0x${randomBytes(4).toString("hex")}`, data: "0x74616e676c65" },
    }),
  });
  const body = (await res.json()) as Json;
  assert.equal(res.status, 201, JSON.stringify(body));
  return body;
}

/**
 * Where a canvas pixel of exactly `rgb` lies with its 5×5 neighbourhood of the same colour (the
 * inside of a node, not an anti-aliased edge), in page coordinates; undefined when none.
 */
async function pixelOf(page: Page, rgb: [number, number, number]): Promise<{ x: number; y: number } | undefined> {
  // run in the page (its DOM types are not this file's)
  const found = await page.evaluate(`(([r, g, b]) => {
    const canvas = document.querySelector(".tangle-graph canvas");
    const ctx = canvas && canvas.getContext("2d");
    if (!ctx) return null;
    const { width, height } = canvas;
    const px = ctx.getImageData(0, 0, width, height).data;
    const is = (x, y) => {
      const i = (y * width + x) * 4;
      return px[i] === r && px[i + 1] === g && px[i + 2] === b && px[i + 3] === 255;
    };
    for (let y = 2; y < height - 2; y++) {
      for (let x = 2; x < width - 2; x++) {
        if (!is(x, y)) continue;
        let all = true;
        for (let dy = -2; dy <= 2 && all; dy++) for (let dx = -2; dx <= 2 && all; dx++) all = is(x + dx, y + dy);
        if (!all) continue;
        const box = canvas.getBoundingClientRect();
        return { x: box.left + (x * box.width) / width, y: box.top + (y * box.height) / height };
      }
    }
    return null;
  })(${JSON.stringify(rgb)})`);
  return (found as { x: number; y: number } | null) ?? undefined;
}

describe("the dashboard's Live tangle page in a browser", { timeout: 120_000 }, () => {
  let s: DashboardSession;

  before(async () => {
    s = await DashboardSession.start("tangle", ["--milestone-interval", String(INTERVAL_MS)]);
  });
  after(async () => {
    await s?.close();
  });

  it("draws submitted blocks under their IDs, marks them referenced and the milestones as such, counts in text", async () => {
    const p = await s.newPage();
    await p.goto("/dashboard/tangle");
    await p.page.getByRole("heading", { level: 1, name: "Live tangle" }).waitFor();
    await p.page.locator(".tangle-graph canvas").first().waitFor();
    // the page is subscribed once a milestone's block is on it
    await milestoneShown(p.page);

    const seenBefore = await figure(p.page, "seen");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await submit(s.node.url));
    for (const id of ids) await p.page.locator(`[data-block-id="${id}"]`).waitFor({ timeout: 5_000 });
    assert.ok((await figure(p.page, "seen")) >= seenBefore + 5);

    // referenced by the next milestone, in the list and in the counts
    for (const id of ids) {
      await p.page.locator(`[data-block-id="${id}"][data-state="referenced"]`).waitFor({ timeout: 4 * INTERVAL_MS });
      const meta = await s.node.json(`/api/core/v2/blocks/${id}/metadata`);
      assert.equal(typeof meta.referencedByMilestoneIndex, "number", `${id} referenced for the node too`);
    }
    assert.ok((await figure(p.page, "referenced")) >= 5);

    // a milestone's block: marked, and the node says it is the milestone the page names
    const ms = p.page.locator('[data-state="milestone"]').first();
    const msId = (await ms.getAttribute("data-block-id"))!;
    const msMeta = await s.node.json(`/api/core/v2/blocks/${msId}/metadata`);
    assert.equal(typeof msMeta.milestoneIndex, "number");
    assert.equal(digits(await ms.locator(".state-word").innerText()), msMeta.milestoneIndex);
    assert.ok((await figure(p.page, "milestones")) >= 1);

    // the counts in text agree with the drawing; the rates move (a milestone a second at least)
    await waitFor(
      async () => (digits(await p.stat("blocks-per-second")) >= 1 ? true : undefined),
      8_000,
      "a rate of blocks",
    );
    assert.equal(digits(await p.stat("blocks-shown")), await figure(p.page, "drawn"));
    assert.ok(digits(await p.stat("confirmed")) >= msMeta.milestoneIndex - 1);
    assert.equal(
      await p.page.getByRole("img", { name: /tangle's recent blocks/ }).getAttribute("aria-describedby"),
      "tangle-summary tangle-legend",
    );
    for (const word of ["pending", "referenced", "conflicting", "milestone"])
      await p.page.locator("#tangle-legend").getByText(word, { exact: true }).waitFor();
    await p.check("tangle");
  });

  it("Pause freezes the drawing while blocks are still counted; Resume draws them", async () => {
    const p = await s.newPage();
    await p.goto("/dashboard/tangle");
    await milestoneShown(p.page);
    await p.page.getByRole("button", { name: "Pause" }).click();
    await p.page.locator('[data-paused="true"]').waitFor();
    const drawn = await figure(p.page, "drawn");
    const seen = await figure(p.page, "seen");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await submit(s.node.url));
    await waitFor(async () => ((await figure(p.page, "seen")) >= seen + 3 ? true : undefined), 5_000, "blocks counted");
    // the milestones keep coming too; none of it is drawn
    await new Promise((r) => setTimeout(r, 1.5 * INTERVAL_MS));
    assert.equal(await figure(p.page, "drawn"), drawn);
    for (const id of ids) assert.equal(await p.page.locator(`[data-block-id="${id}"]`).count(), 0);
    await p.check("tangle-paused");

    await p.page.getByRole("button", { name: "Resume" }).click();
    await p.page.locator('[data-paused="false"]').waitFor();
    await waitFor(async () => ((await figure(p.page, "drawn")) > drawn ? true : undefined), 3_000, "drawn again");
  });

  it("a click on a milestone's node selects it, with a link to its explorer page", async () => {
    const p = await s.newPage();
    await p.goto("/dashboard/tangle");
    await milestoneShown(p.page);
    // let the layout settle, then stop the drawing so the node stays where it is found
    await p.page.getByRole("button", { name: "Pause" }).click();
    await new Promise((r) => setTimeout(r, 1500));
    // the milestone colour of src/tangle/graph.tsx, #1f6fd1
    const at = await waitFor(
      async () => pixelOf(p.page, [0x1f, 0x6f, 0xd1]),
      5_000,
      "a milestone's node on the canvas",
    );
    await p.page.mouse.move(at.x, at.y);
    await p.page.mouse.down();
    await p.page.mouse.up();
    const panel = p.page.locator("#selected-block");
    await panel.waitFor({ timeout: 3_000 });
    const id = (await panel.locator("[data-selected]").getAttribute("data-selected"))!;
    assert.match(id, /^0x[0-9a-f]{64}$/);
    const meta = await s.node.json(`/api/core/v2/blocks/${id}/metadata`);
    assert.equal(typeof meta.milestoneIndex, "number", "the clicked block is a milestone's");
    assert.match(await p.stat("selected-state"), /^milestone [0-9,]+$/);
    assert.equal(
      await panel.getByRole("link", { name: /in the explorer/ }).getAttribute("href"),
      `/dashboard/explorer/block/${id}`,
    );
    await p.check("tangle-selected");
  });
});

describe("the Live tangle page under heavy traffic", { timeout: 120_000 }, () => {
  let s: DashboardSession;

  before(async () => {
    s = await DashboardSession.start("tangle-sampling", [
      "--milestone-interval",
      String(INTERVAL_MS),
      "--min-pow-score",
      "0",
    ]);
  });
  after(async () => {
    await s?.close();
  });

  it("samples above 250 blocks a second, says so, and marks sampled blocks referenced from those it asks about", async () => {
    const p = await s.newPage();
    await p.goto("/dashboard/tangle");
    await milestoneShown(p.page);
    assert.equal(await p.page.locator("figure[data-drawn]").getAttribute("data-sampling"), "false");
    // 16 clients for 4 s: well above 250 blocks a second on any machine that runs these tests
    // (the node holds 64 connections of one address, the browser's among them)
    let sent = 0;
    const until4s = Date.now() + 4000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (Date.now() < until4s) {
          await submitBody(s.node.url);
          sent++;
        }
      }),
    );
    assert.ok(sent > 1000, `${sent} blocks sent in 4 s`);
    await p.page.locator('figure[data-sampling="true"]').waitFor({ timeout: 2_000 });
    await p.page
      .locator("p[data-sampling]")
      .getByText(/^Sampling: the node takes in/)
      .waitFor();
    // the page read fewer blocks than were sent, and drew its window at most
    assert.ok((await figure(p.page, "seen")) < sent, "sampled, not every block read");
    assert.ok((await figure(p.page, "drawn")) <= 1000);
    // the blocks it asked about are referenced by the next milestones, and so is their past
    // cone in the window: referenced blocks drawn, beyond the milestones' own
    await waitFor(
      async () => ((await figure(p.page, "asked-referenced")) > 0 ? true : undefined),
      6 * INTERVAL_MS,
      "an asked block seen referenced",
    );
    await waitFor(
      async () => ((await figure(p.page, "referenced")) >= 10 ? true : undefined),
      4 * INTERVAL_MS,
      "sampled blocks marked referenced",
    );
    // the newest blocks, asked about first, turn referenced in the list too, as the node has them
    const id = await waitFor(
      async () =>
        (await p.page
          .locator('.latest-blocks [data-state="referenced"]')
          .first()
          .getAttribute("data-block-id", {
            timeout: 500,
          })
          .catch(() => null)) ?? undefined,
      6 * INTERVAL_MS,
      "a referenced block among the newest listed",
    );
    const meta = await s.node.json(`/api/core/v2/blocks/${id}/metadata`);
    assert.equal(typeof meta.referencedByMilestoneIndex, "number", `${id} referenced for the node too`);
    await p.check("tangle-sampling");
  });
});
