import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { PAGES, preparePages, type Fixtures } from "./page-catalogue";
import { pagesSession, signIn } from "./pages-support";

/**
 * Every page of ./page-catalogue.ts at a phone's width (390 px) and a desktop's (1280 px): no
 * sideways scrolling, every action on screen; people get a person's error page. The full-page
 * screenshots of both widths (a third of this file's time; the assertions never read them) are
 * taken on request: PAGE_SCREENSHOTS=1 saves them to test-results/pages/, UPDATE_DOC_SCREENSHOTS=1
 * to docs/screenshots/ for docs/pages.md (so an ordinary test run leaves the tracked pictures alone).
 */
const pages = pagesSession();
const base = pages.base;
const SCREENSHOTS = path.resolve(__dirname, process.env.UPDATE_DOC_SCREENSHOTS === "1" ? "../../docs/screenshots" : "../../test-results/pages");
const FULL_PAGE_SCREENSHOTS = process.env.PAGE_SCREENSHOTS === "1" || process.env.UPDATE_DOC_SCREENSHOTS === "1";
const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 },
];

/**
 * What the layout checks read of a page, in one round trip: the page's width and the widest element
 * that sticks out past the viewport (for a useful failure message), the buttons, links styled as
 * buttons and form fields not wholly on screen horizontally, and the height of the page's header
 * (null without one).
 */
async function layoutReading(page: Page): Promise<{ scrollWidth: number; innerWidth: number; culprit: string | null; offscreen: string[]; headerHeight: number | null }> {
  return page.evaluate(() => {
    const innerWidth = window.innerWidth;
    let culprit: string | null = null;
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.right > innerWidth + 1 && getComputedStyle(el).position !== "absolute") {
        culprit = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className ? `.${String(el.className).split(" ").join(".")}` : ""} right=${Math.round(r.right)}`;
      }
    }
    const offscreen: string[] = [];
    for (const el of document.querySelectorAll("main button, main .button, main input:not([type=hidden]), main textarea, header a, header button")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.left < -1 || r.right > innerWidth + 1) offscreen.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? "").trim().slice(0, 30)}" at ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
    const header = document.querySelector("body > header");
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, culprit, offscreen, headerHeight: header ? header.getBoundingClientRect().height : null };
  });
}

type Size = (typeof WIDTHS)[number];

/**
 * One pass over the catalogue's pages of `who` at one width, in a browser context of its own: what
 * does not fit (sideways scrolling, a control off screen, a header taller than a seventh of a
 * phone's height, a 5xx).
 */
async function layoutFailures(fixtures: Fixtures, size: Size, who: "visitor" | "admin"): Promise<string[]> {
  const failures: string[] = [];
  const ctx = await pages.newContext();
  const page = await ctx.newPage();
  await page.setViewportSize({ width: size.width, height: size.height });
  if (who === "admin") await signIn(page, base, fixtures.admin.username, fixtures.admin.password);
  for (const entry of PAGES.filter((p) => p.who === who)) {
    // goto waits for the load event.
    const res = await page.goto(`${base}${entry.path(fixtures)}`);
    const where = `${entry.name} at ${size.width}px`;
    if (!res || res.status() >= 500) failures.push(`${where}: status ${res?.status()}`);
    const o = await layoutReading(page);
    if (o.scrollWidth > size.width) failures.push(`${where}: scrollWidth ${o.scrollWidth} (${o.culprit})`);
    for (const c of o.offscreen) failures.push(`${where}: ${c}`);
    // The header leaves the screen to the page: at most a seventh of a phone's height.
    if (o.headerHeight !== null && o.headerHeight > size.height / 7) failures.push(`${where}: header ${Math.round(o.headerHeight)}px high`);
    if (FULL_PAGE_SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, `layout-${entry.name}-${size.name}.png`), fullPage: true });
  }
  await ctx.close();
  return failures;
}

// The three tests use contexts of their own (one Chromium for the file): side by side.
describe.concurrent("page layout at a phone's and a desktop's width (DESIGN.md: every page fits 390 px)", () => {
  it("every page of the catalogue: no sideways scrolling, every action on screen, a compact header (screenshots at both widths on request)", async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const setup = await pages.newContext();
    const fixtures = await preparePages(base, inject("rootPassword"), await setup.newPage());
    await setup.close();
    // The four passes (two widths, visitor and administrator) side by side, a context each.
    const passes = WIDTHS.flatMap((size) => (["visitor", "admin"] as const).map((who) => layoutFailures(fixtures, size, who)));
    const failures = (await Promise.all(passes)).flat();
    expect(failures).toEqual([]);
    // About 30 pages, two widths, a full-page screenshot each: longer than one page's test.
  }, 900_000);

  it("/help/deprecations: the schedule's timeline (14.0 to 16.0, this version marked) fits 390 px and 1280 px; screenshots of both", async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const size of WIDTHS) {
      const ctx = await pages.newContext();
      const page = await ctx.newPage();
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${base}/help/deprecations`);
      const timeline = page.locator("ol.timeline");
      await timeline.waitFor();
      const stops = await timeline.locator(":scope > li .stop-head strong").allTextContents();
      expect(stops[0]).toBe("14.0");
      expect(stops).toContain("15.0");
      expect(stops).toContain("16.0");
      // The marked stop is the configured version (npm start serves the newest, 16.0, unless told).
      const version = ((await (await fetch(`${base}/api/v4/deprecations`)).json()) as { service_version: string }).service_version;
      await expect(timeline.locator('li[aria-current="step"] .stop-head strong').textContent()).resolves.toBe(version);
      // The table stays below the timeline.
      const [timelineBox, tableBox] = [await timeline.boundingBox(), await page.locator("table").first().boundingBox()];
      expect(tableBox!.y).toBeGreaterThan(timelineBox!.y + timelineBox!.height - 1);
      const o = await layoutReading(page);
      expect(o.scrollWidth, `${size.width}px: ${o.culprit}`).toBeLessThanOrEqual(o.innerWidth);
      await timeline.screenshot({ path: path.join(SCREENSHOTS, `deprecations-timeline-${size.name}.png`) });
      await ctx.close();
    }
  });

  it("the authorize error page speaks to a person; the OAuth code stays in small print", async () => {
    const ctx = await pages.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/oauth/authorize?client_id=unknown&redirect_uri=http://x.example/cb&response_type=code`);
    const heading = await page.locator("h1").textContent();
    expect(heading).not.toMatch(/invalid_client|invalid_request/);
    expect(await page.locator("main").textContent()).toMatch(/application/i);
    expect(await page.locator("main small, main .small-print").first().textContent()).toMatch(/invalid_client/);
    await ctx.close();
  });
});
