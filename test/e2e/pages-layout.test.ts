import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { pagesSession, registerApplication, signIn } from "./pages-support";

/**
 * Issue 13, "Page polish": no page scrolls sideways at a phone's width (390 px) or a desktop's
 * (1280 px), application ids stay readable, people get a person's error page. Screenshots of both
 * widths go to test-results/pages/, or to docs/screenshots/ for docs/pages.md when
 * UPDATE_DOC_SCREENSHOTS=1 (so an ordinary test run leaves the tracked pictures alone).
 */
const pages = pagesSession();
const base = pages.base;
const SCREENSHOTS = path.resolve(__dirname, process.env.UPDATE_DOC_SCREENSHOTS === "1" ? "../../docs/screenshots" : "../../test-results/pages");
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

describe("page layout at a phone's and a desktop's width (issue 13)", () => {
  it("no page overflows horizontally; screenshots of each at both widths", async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const user = await pages.createUser("layout");
    const setup = await pages.newContext();
    const first = await setup.newPage();
    await signIn(first, base, user.username, user.password);
    const { clientId } = await registerApplication(first, base, {
      name: "A rather long application name for the layout check",
      redirectUri: "http://127.0.0.1:9/a/very/long/callback/path/that/should/wrap/on/a/phone",
      scopes: ["api", "read_user"],
    });
    const appPath = new URL(first.url()).pathname;
    await first.goto(`${base}/profile/personal_access_tokens`);
    await setup.close();

    const targets: { name: string; path: string; signedIn: boolean }[] = [
      { name: "sign-in", path: "/users/sign_in", signedIn: false },
      { name: "not-found", path: "/no/such/page", signedIn: false },
      { name: "authorize-error", path: "/oauth/authorize?client_id=unknown&redirect_uri=http://x.example/cb&response_type=code", signedIn: false },
      { name: "home", path: "/", signedIn: true },
      { name: "applications", path: "/profile/applications", signedIn: true },
      { name: "application", path: appPath, signedIn: true },
      { name: "personal-access-tokens", path: "/profile/personal_access_tokens", signedIn: true },
      { name: "two-factor", path: "/profile/two_factor_auth", signedIn: true },
      { name: "deprecations", path: "/help/deprecations", signedIn: true },
      { name: "demo-spa", path: "/-/demo/spa", signedIn: true },
      {
        name: "consent",
        path: `/oauth/authorize?client_id=${clientId}&redirect_uri=${encodeURIComponent("http://127.0.0.1:9/a/very/long/callback/path/that/should/wrap/on/a/phone")}&response_type=code&scope=api&state=s&code_challenge=${"a".repeat(43)}&code_challenge_method=S256`,
        signedIn: true,
      },
    ];
    const failures: string[] = [];
    for (const size of WIDTHS) {
      const ctx = await pages.newContext();
      const page = await ctx.newPage();
      await page.setViewportSize({ width: size.width, height: size.height });
      let signedIn = false;
      for (const t of targets) {
        if (t.signedIn && !signedIn) {
          await signIn(page, base, user.username, user.password);
          signedIn = true;
        }
        await page.goto(`${base}${t.path}`);
        await page.waitForLoadState("load");
        const o = await overflow(page);
        if (o.scrollWidth > o.innerWidth) failures.push(`${t.name} at ${size.width}px: scrollWidth ${o.scrollWidth} (${o.culprit})`);
        await page.screenshot({ path: path.join(SCREENSHOTS, `layout-${t.name}-${size.name}.png`), fullPage: true });
      }
      await ctx.close();
    }
    expect(failures).toEqual([]);
  });

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
