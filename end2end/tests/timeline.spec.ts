// The live timeline: events pushed over SSE appear without a reload, warnings carry the next
// step, filters work, and the kluster list updates itself. Runs in project "staging" so its
// quota-busting kluster does not starve the other tests.
import { expect, type Page } from "@playwright/test";
import { test, signIn } from "./support";

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });

test("quota errors arrive live with the next step, and the list follows by itself", async ({ page, browser }) => {
  test.setTimeout(90_000);
  await signIn(page, "alice", { project: "staging" });
  await page.waitForSelector("body[data-hydrated]");
  await expect(page.getByText("● Live")).toBeVisible({ timeout: 15_000 });

  // Another browser creates a kluster that needs more than the quota.
  const other = await browser.newPage();
  await signIn(other, "alice", { project: "staging" });
  await other.goto("/klusters/new");
  await other.waitForSelector("body[data-hydrated]");
  const name = `quota-${Date.now().toString(36).slice(-5)}`;
  await other.getByLabel("Kluster name").fill(name);
  await other.getByLabel("Nodes").fill("12");
  await expect(other.locator("#quota-summary")).toContainText("It does not fit");
  await other.getByRole("button", { name: "Create kluster" }).click();
  await expect(other).toHaveURL(new RegExp(`/klusters/${name}$`));

  // The list shows it without a reload.
  await expect(page.getByRole("link", { name })).toBeVisible({ timeout: 15_000 });

  await page.goto("/timeline");
  await page.waitForSelector("body[data-hydrated]");
  await expect(page.getByText("● Live")).toBeVisible({ timeout: 15_000 });
  const warning = page.locator('#timeline li[data-kind="Warning"]', { hasText: "FailedCreateNode" }).first();
  await expect(warning).toBeVisible({ timeout: 30_000 });
  await expect(warning).toContainText("Quota exceeded for instances");
  await expect(warning).toContainText("ask your cloud admin for more quota");
  await expect(warning).toContainText(/s ago|min ago/);
  await shot(page, "timeline");

  // Filters: only warnings, then only this kluster's text.
  await page.getByLabel("Type").selectOption("Warning");
  await expect(page.locator('#timeline li[data-kind="Normal"]')).toHaveCount(0);
  await page.getByLabel("Search").fill("no such text anywhere");
  await expect(page.locator("#timeline li")).toHaveCount(0);
  await page.getByLabel("Search").fill("");
  await page.getByLabel("Type").selectOption("");

  // New events keep arriving while the reader is scrolled down: a pill counts them, and
  // takes the reader back to the top.
  await page.setViewportSize({ width: 800, height: 240 });
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(200);
  await other.getByText("Delete this kluster…").click();
  await other.getByLabel(/Type .* to confirm/).fill(name);
  await other.getByRole("button", { name: "Delete kluster" }).click();
  const pill = page.getByRole("button", { name: /new events?$/ });
  await expect(pill).toBeVisible({ timeout: 15_000 });
  await pill.click();
  await expect(pill).toHaveCount(0);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  await expect(page.locator("#timeline li", { hasText: `Kluster ${name} is terminating` })).toBeVisible({ timeout: 15_000 });
});
