import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { PAGES, preparePages } from "./page-catalogue";
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

/** The widest element that sticks out past the viewport, for a useful failure message. */
async function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; culprit: string | null }> {
  return page.evaluate(() => {
    const innerWidth = window.innerWidth;
    let culprit: string | null = null;
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.right > innerWidth + 1 && getComputedStyle(el).position !== "absolute") {
        culprit = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className ? `.${String(el.className).split(" ").join(".")}` : ""} right=${Math.round(r.right)}`;
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, culprit };
  });
}

/** Buttons, links styled as buttons and form fields that are not wholly on screen horizontally. */
async function offscreenControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const el of document.querySelectorAll("main button, main .button, main input:not([type=hidden]), main textarea, header a, header button")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.left < -1 || r.right > window.innerWidth + 1) out.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? "").trim().slice(0, 30)}" at ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
    return out;
  });
}

// The three tests use contexts of their own (one Chromium for the file): side by side.
describe.concurrent("page layout at a phone's and a desktop's width (DESIGN.md: every page fits 390 px)", () => {
  it("every page of the catalogue: no sideways scrolling, every action on screen, a compact header (screenshots at both widths on request)", async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const setup = await pages.newContext();
    const fixtures = await preparePages(base, inject("rootPassword"), await setup.newPage());
    await setup.close();
    const failures: string[] = [];
    for (const size of WIDTHS) {
      for (const who of ["visitor", "admin"] as const) {
        const ctx = await pages.newContext();
        const page = await ctx.newPage();
        await page.setViewportSize({ width: size.width, height: size.height });
        if (who === "admin") await signIn(page, base, fixtures.admin.username, fixtures.admin.password);
        for (const entry of PAGES.filter((p) => p.who === who)) {
          const res = await page.goto(`${base}${entry.path(fixtures)}`);
          await page.waitForLoadState("load");
          const where = `${entry.name} at ${size.width}px`;
          if (!res || res.status() >= 500) failures.push(`${where}: status ${res?.status()}`);
          const o = await overflow(page);
          const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          if (scrollWidth > size.width) failures.push(`${where}: scrollWidth ${scrollWidth} (${o.culprit})`);
          for (const c of await offscreenControls(page)) failures.push(`${where}: ${c}`);
          const header = await page.locator("body > header").boundingBox();
          // The header leaves the screen to the page: at most a seventh of a phone's height.
          if (header && header.height > size.height / 7) failures.push(`${where}: header ${Math.round(header.height)}px high`);
          if (FULL_PAGE_SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, `layout-${entry.name}-${size.name}.png`), fullPage: true });
        }
        await ctx.close();
      }
    }
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
      const o = await overflow(page);
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
