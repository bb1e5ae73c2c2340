// The kluster list finds a kluster among many: search by name, filter by phase and sort, all
// in the URL (a plain GET form and links: works without JavaScript; with it the router
// navigates), and a live change updates only its own row. Real server, real Keystone,
// embedded controller with 2-second phases (scripts/test).
import { expect, type Page } from "@playwright/test";
import { test, signIn } from "./support";

const headers = () => ({ Origin: new URL(test.info().project.use.baseURL!).origin, Accept: "application/json" });

/// An empty kluster (no nodes: no quota used), made through the dashboard's server function
/// as alice.
async function makeOne(page: Page, name: string) {
  const res = await page.request.post("/api/create_kluster", {
    form: {
      "form[name]": name,
      "form[pools][0][name]": "pool",
      "form[pools][0][flavor]": "m1.small",
      "form[pools][0][availability_zone]": "az-a",
      "form[pools][0][size]": "0",
    },
    headers: headers(),
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
}

/// Three empty klusters `<tag>-a`, `-b`, `-c`.
async function makeThree(page: Page, tag: string) {
  for (const s of ["a", "b", "c"]) await makeOne(page, `${tag}-${s}`);
}

async function remove(page: Page, name: string) {
  const res = await page.request.post("/api/delete_kluster", { form: { name, confirm: name }, headers: headers() });
  expect(res.status(), await res.text()).toBeLessThan(300);
}

const tag = (prefix: string) => `${prefix}${Date.now().toString(36).slice(-5)}`;
async function rowNames(page: Page) {
  const rows = page.locator("tbody tr[data-kluster]");
  const names: (string | null)[] = [];
  for (let i = 0; i < (await rows.count()); i++) names.push(await rows.nth(i).getAttribute("data-kluster"));
  return names;
}

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("search, phase filter and sort are plain GET requests", async ({ page }) => {
    await signIn(page, "alice", { js: false });
    const t = tag("nl");
    await makeThree(page, t);
    await page.goto("/");
    await page.getByLabel("Search names").fill(t.toUpperCase());
    await page.getByRole("button", { name: "Search" }).click();
    await expect(page).toHaveURL(new RegExp(`/\\?q=${t.toUpperCase()}`));
    expect(await rowNames(page)).toEqual([`${t}-a`, `${t}-b`, `${t}-c`]);
    await expect(page.getByText("Page 1 of 1 · 3 klusters")).toBeVisible();

    // Sorting keeps the search; the second click turns the order round.
    await page.getByRole("link", { name: /^Name/ }).click();
    await expect(page).toHaveURL(/sort=-name/);
    expect(await rowNames(page)).toEqual([`${t}-c`, `${t}-b`, `${t}-a`]);
    await expect(page.getByLabel("Search names")).toHaveValue(t.toUpperCase());

    await page.getByLabel("Phase", { exact: true }).selectOption("Terminating");
    await page.getByRole("button", { name: "Search" }).click();
    await expect(page).toHaveURL(/phase=Terminating/);
    await expect(page.getByText("No kluster matches this search.")).toBeVisible();

    // A bad parameter typed into the URL: a sentence, not a broken page.
    await page.goto("/?sort=size");
    await expect(page.getByText("Unknown sort")).toBeVisible();
    for (const s of ["a", "b", "c"]) await remove(page, `${t}-${s}`);
  });
});

test("with JavaScript the router navigates, and a live change updates only its row", async ({ page }) => {
  test.setTimeout(60_000);
  await signIn(page, "alice");
  const t = tag("jl");
  await makeThree(page, t);
  // A kluster the search does not find: the unfiltered page then never holds exactly the
  // three found, so the count below means the search's own page is on screen (not the old
  // one, still shown while the search loads).
  const decoy = tag("dc");
  await makeOne(page, decoy);
  await page.goto("/");
  await page.waitForSelector("body[data-hydrated]");
  // Marks that survive only while the page is not reloaded / the rows not re-created.
  await page.evaluate(() => ((window as unknown as { kept: boolean }).kept = true));
  await page.getByLabel("Search names").fill(t);
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(new RegExp(`/\\?q=${t}`));
  await expect(page.locator("tbody tr[data-kluster]")).toHaveCount(3);
  expect(await page.evaluate(() => (window as unknown as { kept?: boolean }).kept)).toBe(true);

  await page.locator("tbody tr[data-kluster]").evaluateAll((rows) => rows.forEach((r) => ((r as HTMLElement).dataset.mark = "same")));
  // Another tab scales b's pool to 1: the live stream reports it and the row follows.
  const res = await page.request.post("/api/scale_pool", { form: { name: `${t}-b`, pool: "pool", size: "1" }, headers: headers() });
  expect(res.status(), await res.text()).toBeLessThan(400);
  const b = page.locator(`tr[data-kluster="${t}-b"]`);
  await expect(b).toContainText(/pool: (\d\/1 running|1 nodes)/, { timeout: 15_000 });
  // Every row is the same element as before: updated in place, the table not re-rendered.
  for (const s of ["a", "b", "c"]) {
    await expect(page.locator(`tr[data-kluster="${t}-${s}"]`)).toHaveAttribute("data-mark", "same");
  }
  await expect(page.locator(`tr[data-kluster="${t}-a"]`)).toContainText(/pool: (0\/0 running|0 nodes)/);
  for (const s of ["a", "b", "c"]) await remove(page, `${t}-${s}`);
  await remove(page, decoy);
});
