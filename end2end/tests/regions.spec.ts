// Every region in the catalog: a third server with controller_url = "catalog" finds two
// Kubernikus APIs in the test Keystone's catalog (service type kubernikus, RegionOne and
// RegionTwo), each a controller process of its own. A kluster made in one region is not in
// the other, the region is in the URL and kept by the session, the live timeline follows the
// region, an unknown region is refused in words, and a region whose controller was killed
// (kill -9) says so while the other keeps working.
// Skipped unless scripts/test started those servers (MC_REGIONS_BASE_URL).
import { expect, type Page } from "@playwright/test";
import { test, createEmptyKluster, removeKluster, signIn, unique } from "./support";

const base = process.env.MC_REGIONS_BASE_URL;
const twoPid = Number(process.env.MC_REGION_TWO_PID ?? "0");
test.skip(!base, "MC_REGIONS_BASE_URL is unset: no server with regions from the catalog");
test.use({ baseURL: base });

/** Switches to `region` with the header's picker (a plain GET form). */
async function switchTo(page: Page, region: string) {
  await page.getByLabel("Region", { exact: true }).selectOption(region);
  await page.getByRole("button", { name: "Go" }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]region=${region}$`));
  await expect(page.getByLabel("Region", { exact: true })).toHaveValue(region);
}

test("each region shows its own klusters, live, and a region that is down says so", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await page.waitForSelector("body[data-hydrated]");
  // The first region of the catalog, by name.
  await expect(page.getByLabel("Region", { exact: true })).toHaveValue("RegionOne");
  const options = await page.getByLabel("Region", { exact: true }).locator("option").allTextContents();
  expect(options).toEqual(["RegionOne", "RegionTwo"]);

  const one = unique("reg-one");
  const two = unique("reg-two");
  await createEmptyKluster(page, one);
  await page.reload();
  await expect(page.getByRole("link", { name: one })).toBeVisible();

  // RegionTwo: the first kluster is not there; the timeline there follows RegionTwo live.
  await switchTo(page, "RegionTwo");
  await expect(page.getByRole("link", { name: one })).toHaveCount(0);
  await page.goto("/timeline");
  await page.waitForSelector("body[data-hydrated]");
  await expect(page.getByText("● Live")).toBeVisible({ timeout: 15_000 });
  const other = await browser.newPage({ baseURL: base });
  await signIn(other);
  await other.goto("/?region=RegionTwo");
  await expect(other.getByLabel("Region", { exact: true })).toHaveValue("RegionTwo");
  await createEmptyKluster(other, two);
  await expect(page.locator("#timeline li", { hasText: two }).first()).toBeVisible({ timeout: 20_000 });
  await expect(page.locator("#timeline li", { hasText: one })).toHaveCount(0);

  // The session keeps the region: a plain visit of the list is still RegionTwo's.
  await page.goto("/");
  await expect(page.getByLabel("Region", { exact: true })).toHaveValue("RegionTwo");
  await expect(page.getByRole("link", { name: two })).toBeVisible();
  await expect(page.getByRole("link", { name: one })).toHaveCount(0);
  await switchTo(page, "RegionOne");
  await expect(page.getByRole("link", { name: one })).toBeVisible();
  await expect(page.getByRole("link", { name: two })).toHaveCount(0);

  // A region that is not in the catalog: 400 in words, and the session stays where it was.
  const bad = await page.request.get("/?region=Atlantis");
  expect(bad.status()).toBe(400);
  expect(await bad.text()).toContain('There is no region "Atlantis" with a Kubernikus service in your catalog; yours: RegionOne, RegionTwo.');
  await page.goto("/");
  await expect(page.getByLabel("Region", { exact: true })).toHaveValue("RegionOne");

  // RegionTwo's controller dies (kill -9): its page says so; RegionOne keeps working.
  await removeKluster(other, two);
  await other.close();
  if (twoPid > 0) {
    process.kill(twoPid, "SIGKILL");
    await page.goto("/?region=RegionTwo");
    await expect(page.getByLabel("Region", { exact: true })).toHaveValue("RegionTwo");
    await expect(page.getByText("The Kubernikus service cannot be reached right now").first()).toBeVisible();
    await switchTo(page, "RegionOne");
    await expect(page.getByRole("link", { name: one })).toBeVisible();
  }
  await removeKluster(page, one);
});
