// Accessibility: axe-core checks every page (login, list, create, detail, timeline, audit,
// the cloud admins' operations, all-projects timeline and audit, 404) for
// WCAG 2.1 A and AA violations, in the light and the dark colour scheme, with the states a
// person meets: a sign-in error, a rejected field, warnings with their next step.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";
import { test, adminPassword, signIn } from "./support";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/// Runs axe on the page as it is now; a violation fails the test (softly, so that one run
/// lists every page's violations), each with its rule, impact and the elements it found.
async function check(page: Page, what: string) {
  await page.waitForSelector("body[data-hydrated]");
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const found = violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    count: v.nodes.length,
    help: v.help,
    first: v.nodes.slice(0, 3).map((n) => `${n.target.join(" ")}: ${n.failureSummary ?? ""}`),
  }));
  const total = found.reduce((n, v) => n + v.count, 0);
  console.log(`axe ${test.info().title} · ${what}: ${total} violation(s)${total ? " " + JSON.stringify(found.map((f) => [f.rule, f.count])) : ""}`);
  expect.soft(found, `${what}: WCAG 2.1 A/AA violations`).toEqual([]);
}

for (const scheme of ["light", "dark"] as const) {
  test(`every page passes axe in ${scheme} mode`, async ({ page, browser }) => {
    test.setTimeout(90_000);
    await page.emulateMedia({ colorScheme: scheme });

    // Signed out: the login page (empty and with an error) and the 404 page.
    await page.goto("/login");
    await check(page, "login");
    await page.goto("/login?error=invalid_credentials&user=alice&domain=demo&project=demo");
    await expect(page.getByText("Invalid user name or password")).toBeVisible();
    await check(page, "login with an error");
    const missing = await page.goto("/no-such-page");
    expect(missing?.status()).toBe(404);
    await check(page, "404");

    // In staging (alice is its admin too), where the timeline test spends the quota as well.
    await signIn(page, "alice", { project: "staging" });
    // A kluster whose second pool wants more nodes than the project's quota: its last nodes
    // fail (FailedCreateNode), so the detail page and the timeline show warnings. (A zone the
    // cloud does not have is refused at create time now.)
    const base = test.info().project.use.baseURL!;
    const headers = { Origin: new URL(base).origin, Accept: "application/json" };
    const name = `a11y-${scheme}-${Date.now().toString(36).slice(-5)}`;
    const created = await page.request.post("/api/create_kluster", {
      headers,
      form: {
        "form[name]": name,
        "form[pools][0][name]": "pool",
        "form[pools][0][flavor]": "m1.small",
        "form[pools][0][availability_zone]": "az-a",
        "form[pools][0][size]": "0",
        "form[pools][1][name]": "big",
        "form[pools][1][flavor]": "m1.small",
        "form[pools][1][availability_zone]": "az-a",
        "form[pools][1][size]": "12",
      },
    });
    expect(created.status(), await created.text()).toBeLessThan(400);

    try {
      await page.goto("/");
      await expect(page.getByRole("link", { name })).toBeVisible();
      await check(page, "list");

      await page.goto("/klusters/new");
      await page.waitForSelector("body[data-hydrated]");
      await page.getByLabel("Kluster name").fill("Bad_Name");
      await expect(page.locator("#name-error")).toContainText("lower-case");
      await check(page, "create (with a rejected field)");

      await page.goto(`/klusters/${name}`);
      await expect(page.getByText("FailedCreateNode").first()).toBeVisible({ timeout: 30_000 });
      await check(page, "detail (with warnings)");

      await page.goto("/timeline");
      await expect(page.locator('#timeline li[data-kind="Warning"]').first()).toBeVisible({ timeout: 15_000 });
      await expect(page.locator("#timeline time").first()).toHaveText(/ago/);
      await check(page, "timeline (with warnings)");

      // The project's audit trail (alice is an admin of staging), filtered by the URL.
      await page.goto(`/audit?kluster=${name}`);
      await expect(page.locator("#audit-table")).toContainText(name);
      await check(page, "audit (filtered)");

      // The cloud admin's pages, in a browser of its own.
      const ctx = await browser.newContext({ colorScheme: scheme, baseURL: base });
      const ops = await ctx.newPage();
      try {
        await signIn(ops, "admin", { password: adminPassword(), domain: "Default", project: "cloud_admin" });
        await ops.goto("/ops");
        await expect(ops.locator("#quota-table")).toBeVisible();
        await check(ops, "operations (needs attention, quotas)");
        await ops.goto("/ops/timeline");
        await expect(ops.locator("#ops-events")).toContainText(name, { timeout: 15_000 });
        await check(ops, "all projects' timeline");
        await ops.goto("/audit");
        await expect(ops.locator("#audit-table")).toContainText(name);
        await check(ops, "audit (every project)");
      } finally {
        await ctx.close();
      }
    } finally {
      await page.request.post("/api/delete_kluster", { headers, form: { name, confirm: name } });
    }
  });
}
