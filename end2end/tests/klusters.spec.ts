// Klusters in the browser: create (validated as you type, with the API's messages), watch it
// come up, download and check the kubeconfig with kubectl, scale, delete; a member is
// read-only; create without JavaScript. Real server, real Keystone, embedded controller with
// 2-second phases (scripts/test).
import { execFileSync } from "node:child_process";
import { expect, type Page } from "@playwright/test";
import { test, signIn, unique } from "./support";

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });

test("alice creates a kluster, watches it run, downloads its kubeconfig, scales and deletes it", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, "alice");
  await page.getByRole("link", { name: "New kluster" }).first().click();
  await expect(page).toHaveURL(/\/klusters\/new$/);
  await page.waitForSelector("body[data-hydrated]");

  // Validated as the user types, with the API's own message.
  const name = page.getByLabel("Kluster name");
  await name.fill("Bad_Name");
  const browserMessage = (await page.locator("#name-error").textContent()) ?? "";
  expect(browserMessage).toContain("lower-case");
  await expect(page.locator("#quota-summary")).toContainText("These pools need 2 instances, 4 vCPUs and 8 GiB RAM");
  await shot(page, "create-form");

  // Submitting is held back until the fields are right.
  await page.getByRole("button", { name: "Create kluster" }).click();
  await expect(page).toHaveURL(/\/klusters\/new$/);
  await expect(page.locator("#name-error")).toHaveText(browserMessage);

  // The same input sent to the server goes to the controller API, whose answer is the same
  // sentence.
  const base = test.info().project.use.baseURL!;
  const res = await page.request.post("/api/create_kluster", {
    form: {
      "form[name]": "Bad_Name",
      "form[pools][0][name]": "pool",
      "form[pools][0][flavor]": "m1.small",
      "form[pools][0][availability_zone]": "az-a",
      "form[pools][0][size]": "2",
    },
    headers: { Origin: new URL(base).origin, Accept: "application/json" },
  });
  expect(res.status()).toBe(422);
  const api = await res.json();
  expect(api.code).toBe("invalid");
  expect(api.fields.find((e: { field: string }) => e.field === "name").message).toBe(browserMessage);

  const kname = unique("life");
  await name.fill(kname);
  await expect(page.locator("#name-error")).toHaveText("");
  await page.getByLabel("Nodes").fill("2");
  await page.getByRole("button", { name: "Create kluster" }).click();
  await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));
  await expect(page.locator("#phase")).toHaveText(/Pending|Creating|Running/);
  await expect(page.locator("#phase")).toHaveText("Running", { timeout: 30_000 });
  const pool = page.locator('tr[data-pool="pool"]');
  await expect(pool.locator('[data-count="healthy"]')).toHaveText("2", { timeout: 30_000 });
  await expect(page.locator("#setup-command")).toContainText("kubernikusctl auth init");
  await expect(page.getByText("SuccessfulCreateNode").first()).toBeVisible();
  await shot(page, "kluster-detail");

  // The kubeconfig downloads as <name>.kubeconfig and kubectl reads it.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download kubeconfig" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${kname}.kubeconfig`);
  const file = test.info().outputPath(`${kname}.kubeconfig`);
  await download.saveAs(file);
  const view = execFileSync("kubectl", ["config", "view", "--kubeconfig", file, "-o", "jsonpath={.clusters[0].name}"]);
  expect(view.toString()).toBe(kname);

  // Scale up: the pool follows.
  await page.getByLabel("Size of pool pool").fill("3");
  await pool.getByRole("button", { name: "Scale" }).click();
  await expect(pool.locator('[data-count="running"]')).toHaveText("3", { timeout: 30_000 });

  // Add a pool, then remove it: only once it is scaled to 0.
  await page.getByText("Add a node pool…").click();
  await page.getByLabel("Pool name").fill("extra");
  await page.getByRole("button", { name: "Add pool" }).click();
  const extra = page.locator('tr[data-pool="extra"]');
  await expect(extra).toBeVisible();
  await expect(page.getByRole("button", { name: "Remove pool extra" })).toHaveCount(0);
  await page.getByLabel("Size of pool extra").fill("0");
  await extra.getByRole("button", { name: "Scale" }).click();
  await page.getByRole("button", { name: "Remove pool extra" }).click();
  await expect(extra).toHaveCount(0);

  // Delete behind a typed confirmation.
  await page.getByText("Delete this kluster…").click();
  await page.getByLabel(/Type .* to confirm/).fill("wrong");
  await page.getByRole("button", { name: "Delete kluster" }).click();
  await expect(page.getByText(`Type ${kname} to confirm.`, { exact: true })).toBeVisible();
  await page.getByLabel(/Type .* to confirm/).fill(kname);
  await page.getByRole("button", { name: "Delete kluster" }).click();
  await expect(page).toHaveURL(/\/$/);
  await shot(page, "kluster-list");
  await expect(async () => {
    await page.goto("/");
    await expect(page.getByRole("link", { name: kname })).toHaveCount(0);
  }).toPass({ timeout: 30_000 });
});

test("a member sees no create, scale or delete controls and the server refuses them", async ({ page, browser }) => {
  // Alice makes a kluster for bob to look at.
  const admin = await browser.newPage();
  await signIn(admin, "alice");
  await admin.goto("/klusters/new");
  await admin.waitForSelector("body[data-hydrated]");
  const kname = unique("ro");
  await admin.getByLabel("Kluster name").fill(kname);
  await admin.getByLabel("Nodes").fill("1");
  await admin.getByRole("button", { name: "Create kluster" }).click();
  await expect(admin).toHaveURL(new RegExp(`/klusters/${kname}$`));

  await signIn(page, "bob");
  await expect(page.getByRole("link", { name: "New kluster" })).toHaveCount(0);
  await page.getByRole("link", { name: kname }).click();
  await expect(page.locator("#phase")).toBeVisible();
  await expect(page.getByRole("button", { name: "Scale" })).toHaveCount(0);
  await expect(page.getByText("Delete this kluster…")).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Download kubeconfig" })).toBeVisible();
  await shot(page, "kluster-detail-member");
  await page.goto("/klusters/new");
  await expect(page.getByText("does not let you create klusters")).toBeVisible();

  // Calling the server function directly does not help: the controller's 403, in words.
  const base = test.info().project.use.baseURL!;
  const res = await page.request.post("/api/delete_kluster", {
    form: { name: kname, confirm: kname },
    headers: { Origin: new URL(base).origin, Accept: "application/json" },
  });
  expect(res.status()).toBe(403);
  expect(await res.text()).toContain("not allowed");

  // Clean up as alice.
  await admin.getByText("Delete this kluster…").click();
  await admin.getByLabel(/Type .* to confirm/).fill(kname);
  await admin.getByRole("button", { name: "Delete kluster" }).click();
  await expect(admin).toHaveURL(/\/$/);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the create form submits and shows the server's errors, keeping the values", async ({ page }) => {
    await signIn(page, "alice", { js: false });
    await page.goto("/klusters/new");
    await page.getByLabel("Kluster name").fill("Bad_Name");
    await page.getByLabel("Nodes").fill("500");
    await page.getByRole("button", { name: "Create kluster" }).click();
    await expect(page).toHaveURL(/\/klusters\/new\?retry=1$/);
    await expect(page.getByText("Please correct the marked fields.")).toBeVisible();
    await expect(page.locator("#name-error")).toContainText("lower-case");
    await expect(page.getByLabel("Kluster name")).toHaveValue("Bad_Name");
    await expect(page.getByLabel("Nodes")).toHaveValue("500");
    await shot(page, "create-form-nojs-errors");

    const kname = unique("nojs");
    await page.getByLabel("Kluster name").fill(kname);
    await page.getByLabel("Nodes").fill("1");
    await page.getByRole("button", { name: "Create kluster" }).click();
    await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));
    await expect(page.getByRole("heading", { name: kname })).toBeVisible();

    // A rejected plain form post comes back to the page with the error in words.
    await page.getByText("Delete this kluster…").click();
    await page.getByLabel(/Type .* to confirm/).fill("wrong");
    await page.getByRole("button", { name: "Delete kluster" }).click();
    await expect(page).toHaveURL(new RegExp(`/klusters/${kname}\\?error=invalid$`));
    await expect(page.getByRole("alert").filter({ hasText: "type the kluster's name exactly" })).toBeVisible();

    // Deleting works without JavaScript too (the <details> opens natively).
    await page.getByText("Delete this kluster…").click();
    await page.getByLabel(/Type .* to confirm/).fill(kname);
    await page.getByRole("button", { name: "Delete kluster" }).click();
    await expect(page).toHaveURL(/\/$/);
  });
});

test.describe("at 360 px in dark mode", () => {
  test.use({ viewport: { width: 360, height: 780 }, colorScheme: "dark" });

  test("pages fit the width, follow the system's dark mode and do not shift on hydration", async ({ page }) => {
    // Record layout shifts from the first paint on.
    await page.addInitScript(() => {
      (window as unknown as { shifts: number }).shifts = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) {
          if (!e.hadRecentInput) (window as unknown as { shifts: number }).shifts += e.value;
        }
      }).observe({ type: "layout-shift", buffered: true });
    });
    await signIn(page, "alice");
    for (const path of ["/", "/klusters/new"]) {
      await page.goto(path);
      await page.waitForSelector("body[data-hydrated]");
      await page.waitForTimeout(300);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${path} fits 360 px`).toBeLessThanOrEqual(360);
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(bg, "dark background").not.toBe("rgb(248, 250, 252)");
      const shifts = await page.evaluate(() => (window as unknown as { shifts: number }).shifts);
      expect(shifts, `${path}: cumulative layout shift`).toBeLessThan(0.05);
      await shot(page, `narrow-dark${path.replaceAll("/", "-")}`);
    }
  });
});
