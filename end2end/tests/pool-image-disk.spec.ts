// A pool's image and root disk at create (issue 35, item 3): the image picked from the cloud's
// images, a disk outside 64–1024 GB named by its field with what was typed kept (checked as
// typed with the API's rule, and by the server without JavaScript), a good choice read back
// through the API and shown on the kluster's page as fixed; a pool added later gets its
// own image and disk. Real server, real Keystone,
// embedded controller.
import { expect, type Page } from "@playwright/test";
import { test, signIn, unique, scriptHeaders, removeKluster } from "./support";

const RULE = "A custom root disk has 64 to 1024 GB.";

/** The kluster's first pool as the app's server reads it from the controller API. */
async function apiPool(page: Page, name: string) {
  const res = await page.request.post("/api/get_kluster_detail", { form: { name }, headers: scriptHeaders() });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).kluster.spec.nodePools[0];
}

test("image and root disk are chosen at create, checked, and shown as fixed", async ({ page }) => {
  await signIn(page, "alice");
  await page.goto("/klusters/new");
  await page.waitForSelector("body[data-hydrated]");
  const kname = unique("disk");
  await page.getByLabel("Kluster name").fill(kname);
  await page.getByLabel("Nodes").fill("0");
  await expect(page.locator("#pool-0-image")).toHaveValue("flatcar-stable-amd64");
  await page.locator("#pool-0-image").selectOption("ubuntu-24.04-amd64");

  // Outside the bounds: named as typed, nothing sent.
  await page.getByLabel("Root disk (GB)").fill("2000");
  await expect(page.locator("#pool-0-disk-error")).toHaveText(RULE);
  await page.getByRole("button", { name: "Create kluster" }).click();
  await expect(page).toHaveURL(/\/klusters\/new$/);
  await expect(page.getByLabel("Root disk (GB)")).toHaveValue("2000");

  await page.getByLabel("Root disk (GB)").fill("100");
  await expect(page.locator("#pool-0-disk-error")).toHaveText("");
  await page.getByRole("button", { name: "Create kluster" }).click();
  await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));
  try {
    const box = page.locator('[data-pool-options="pool"]');
    await expect(box.locator('[data-field="image"]')).toHaveText("ubuntu-24.04-amd64");
    await expect(box.locator('[data-field="root-disk"]')).toHaveText("100 GB");
    await expect(page.getByText("Image and root disk are fixed when the pool is created.")).toBeVisible();
    const pool = await apiPool(page, kname);
    expect([pool.image, pool.customRootDiskSize]).toEqual(["ubuntu-24.04-amd64", 100]);

    // A pool added later gets the image and disk chosen for it, not the default.
    await page.getByText("Add a node pool…").click();
    const add = page.locator("details", { has: page.getByText("Add a node pool…") });
    await add.getByLabel("Pool name").fill("later");
    await add.getByLabel("Nodes").fill("0");
    await add.getByLabel("Image").selectOption("ubuntu-24.04-amd64");
    await add.getByLabel("Root disk (GB)").fill("200");
    await add.getByRole("button", { name: "Add pool" }).click();
    const later = page.locator('[data-pool-options="later"]');
    await expect(later.locator('[data-field="image"]')).toHaveText("ubuntu-24.04-amd64");
    await expect(later.locator('[data-field="root-disk"]')).toHaveText("200 GB");
  } finally {
    await removeKluster(page, kname);
  }
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("a disk outside the bounds comes back named, with what was typed", async ({ page }) => {
    await signIn(page, "alice", { js: false });
    await page.goto("/klusters/new");
    const kname = unique("disknj");
    await page.getByLabel("Kluster name").fill(kname);
    await page.getByLabel("Nodes").fill("0");
    await page.locator("#pool-0-image").selectOption("ubuntu-24.04-amd64");
    await page.getByLabel("Root disk (GB)").fill("20");
    await page.getByRole("button", { name: "Create kluster" }).click();
    await expect(page).toHaveURL(/\/klusters\/new\?retry=1$/);
    await expect(page.locator("#pool-0-disk-error")).toHaveText(RULE);
    await expect(page.getByLabel("Root disk (GB)")).toHaveValue("20");
    await expect(page.locator("#pool-0-image")).toHaveValue("ubuntu-24.04-amd64");
    await expect(page.getByLabel("Kluster name")).toHaveValue(kname);

    await page.getByLabel("Root disk (GB)").fill("64");
    await page.getByRole("button", { name: "Create kluster" }).click();
    await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));
    try {
      await expect(page.locator('[data-pool-options="pool"] [data-field="root-disk"]')).toHaveText("64 GB");
    } finally {
      await removeKluster(page, kname);
    }
  });
});
