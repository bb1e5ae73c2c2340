// Pool labels, taints and update policy (issue 35, items 1 and 2): set in the create form,
// shown on the kluster's page, read back through the API, changed on the existing pool, and a
// taint the API refuses named by its field with what was typed kept; with and without
// JavaScript. Real server, real Keystone, embedded controller with 2-second phases.
import { expect, type Locator, type Page } from "@playwright/test";
import { test, signIn, unique, scriptHeaders, removeKluster } from "./support";

/** Opens the pool's settings form. A live update that lands right after a save renders the
 * card again, closed: a click then may close what it opened, so the form is opened until it
 * shows. */
async function openSettings(box: Locator) {
  await expect(async () => {
    const open = await box.locator("details").first().evaluate((d) => (d as HTMLDetailsElement).open);
    if (!open) await box.getByText("Change settings of pool pool…").click();
    await expect(box.getByLabel("Taints")).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
}

const RULE = "A change reaches nodes created after it.";

/** The kluster's first pool as the app's server reads it from the controller API. */
async function apiPool(page: Page, name: string) {
  const res = await page.request.post("/api/get_kluster_detail", { form: { name }, headers: scriptHeaders() });
  expect(res.status(), await res.text()).toBe(200);
  const pool = (await res.json()).kluster.spec.nodePools[0];
  return { labels: pool.labels ?? [], taints: pool.taints ?? [], config: pool.config };
}

test("labels, a taint and the update policy round-trip from the create form to the page and the API", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, "alice");
  await page.goto("/klusters/new");
  await page.waitForSelector("body[data-hydrated]");
  const kname = unique("opts");
  await page.getByLabel("Kluster name").fill(kname);
  await page.getByLabel("Nodes").fill("1");

  // What the page sends to the app's server: a form the browser's check refuses sends nothing.
  const sent = { create_kluster: 0, edit_kluster: 0 };
  page.on("request", (r) => {
    const call = new URL(r.url()).pathname.replace("/api/", "");
    if (call === "create_kluster" || call === "edit_kluster") sent[call] += 1;
  });

  // Checked as typed with the API's rules, the item named by its field.
  await page.locator("#pool-0-taints").fill("dedicated=gpu:Sometimes");
  await expect(page.locator("#pool-0-taints-error")).toContainText("spec.nodePools[0].taints[0]");
  await page.getByRole("button", { name: "Create kluster" }).click();
  await expect(page).toHaveURL(/\/klusters\/new$/);
  await expect(page.locator("#pool-0-taints")).toHaveValue("dedicated=gpu:Sometimes");
  expect(sent.create_kluster, "a refused form is not sent").toBe(0);

  await page.locator("#pool-0-labels").fill("team=payments\ntier=web");
  await page.locator("#pool-0-taints").fill("dedicated=gpu:NoSchedule");
  await expect(page.locator("#pool-0-taints-error")).toHaveText("");
  await page.getByLabel("Allow replace").uncheck();
  await page.getByRole("button", { name: "Create kluster" }).click();
  await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));

  try {
    // The page shows them with the rule in words.
    const box = page.locator('[data-pool-options="pool"]');
    await expect(box.locator('[data-field="labels"]')).toContainText("team=payments");
    await expect(box.locator('[data-field="labels"]')).toContainText("tier=web");
    await expect(box.locator('[data-field="taints"]')).toContainText("dedicated=gpu:NoSchedule");
    await expect(box.locator('[data-field="allow-reboot"]')).toHaveText("allowed");
    await expect(box.locator('[data-field="allow-replace"]')).toHaveText("not allowed");
    await expect(page.getByText(RULE).first()).toBeVisible();

    // The controller stored what the form sent.
    expect(await apiPool(page, kname)).toEqual({
      labels: ["team=payments", "tier=web"],
      taints: ["dedicated=gpu:NoSchedule"],
      config: { allowReboot: true, allowReplace: false },
    });

    // Let it settle, so the page does not reload under the form.
    await expect(page.locator("#phase")).toHaveText("Running", { timeout: 30_000 });
    await expect(page.locator('tr[data-pool="pool"] [data-count="healthy"]')).toHaveText("1", { timeout: 30_000 });
    // The node's announcement (written once it is up, about when it turns healthy) is the
    // last news: once the page shows it, no refetch is on its way.
    await expect(page.getByText("SuccessfulCreateNode").first()).toBeVisible({ timeout: 30_000 });
    await page.waitForSelector("body[data-hydrated]");

    // Change the existing pool's labels and policy.
    await openSettings(box);
    await box.getByLabel("Labels").fill("team=platform");
    await box.getByLabel("Allow replace").check();
    await box.getByRole("button", { name: "Save settings" }).click();
    await expect(box.locator('[data-field="labels"]')).toHaveText("team=platform");
    await expect(box.locator('[data-field="allow-replace"]')).toHaveText("allowed");
    await expect.poll(() => apiPool(page, kname)).toEqual({
      labels: ["team=platform"],
      taints: ["dedicated=gpu:NoSchedule"],
      config: { allowReboot: true, allowReplace: true },
    });

    // A taint with an effect that does not exist: named by its field, kept, not sent.
    await openSettings(box);
    await box.getByLabel("Taints").fill("dedicated=gpu:Sometimes");
    const error = box.locator("#pool-0-opt-taints-error");
    await expect(error).toContainText("spec.nodePools[0].taints[0]");
    const browserMessage = ((await error.textContent()) ?? "").replace("spec.nodePools[0].taints[0]: ", "");
    const edits = sent.edit_kluster;
    await box.getByRole("button", { name: "Save settings" }).click();
    await expect(box.getByLabel("Taints")).toHaveValue("dedicated=gpu:Sometimes");
    await expect(error).toContainText("Sometimes");
    expect(sent.edit_kluster, "a refused form is not sent").toBe(edits);
    expect((await apiPool(page, kname)).taints).toEqual(["dedicated=gpu:NoSchedule"]);

    // The same edit sent to the server is refused (422) with the same words, naming the field.
    const res = await page.request.post("/api/edit_kluster", {
      form: {
        name: kname,
        "edit[op]": "set_pool_options",
        "edit[pool]": "pool",
        "edit[options][labels]": "team=platform",
        "edit[options][taints]": "dedicated=gpu:Sometimes",
        "edit[options][allow_reboot]": "on",
      },
      headers: scriptHeaders(),
    });
    expect(res.status()).toBe(422);
    const api = await res.json();
    const field = api.fields.find((e: { field: string }) => e.field === "spec.nodePools[0].taints[0]");
    expect(field.message).toBe(browserMessage);
    expect((await apiPool(page, kname)).taints).toEqual(["dedicated=gpu:NoSchedule"]);

    // A live update draws the page again under the open form (here termination protection,
    // turned on elsewhere): what was typed, its error and the open form stay, and the check
    // still keeps it from being sent.
    const protect = (enabled: string) =>
      page.request.post("/api/set_termination_protection", { form: { name: kname, enabled }, headers: scriptHeaders() });
    expect((await protect("true")).status()).toBeLessThan(400);
    await expect(page.getByText("Termination protection is on")).toBeVisible();
    await expect(box.locator("details").first()).toHaveAttribute("open", "");
    await expect(box.getByLabel("Taints")).toHaveValue("dedicated=gpu:Sometimes");
    await expect(error).toContainText("spec.nodePools[0].taints[0]");
    await box.getByRole("button", { name: "Save settings" }).click();
    await expect(error).toContainText("Sometimes");
    expect(sent.edit_kluster, "a refused form is not sent after a redraw").toBe(edits);
    expect((await protect("false")).status()).toBeLessThan(400);
  } finally {
    await removeKluster(page, kname);
  }
});

test("a pool added later gets the update policy chosen", async ({ page }) => {
  await signIn(page, "alice");
  const kname = unique("addp");
  const created = await page.request.post("/api/create_kluster", {
    headers: scriptHeaders(),
    form: {
      "form[name]": kname,
      "form[pools][0][name]": "pool",
      "form[pools][0][flavor]": "m1.small",
      "form[pools][0][availability_zone]": "az-a",
      "form[pools][0][size]": "0",
    },
  });
  expect(created.status(), await created.text()).toBeLessThan(400);
  try {
    const res = await page.request.post("/api/edit_kluster", {
      headers: scriptHeaders(),
      form: {
        name: kname,
        "edit[op]": "add_pool",
        "edit[pool]": "extra",
        "edit[flavor]": "m1.small",
        "edit[zone]": "az-a",
        "edit[size]": "0",
        "edit[options][labels]": "role=batch",
        "edit[options][allow_replace]": "on",
      },
    });
    expect(res.status(), await res.text()).toBeLessThan(400);
    await page.goto(`/klusters/${kname}`);
    const box = page.locator('[data-pool-options="extra"]');
    await expect(box.locator('[data-field="labels"]')).toHaveText("role=batch");
    await expect(box.locator('[data-field="allow-reboot"]')).toHaveText("not allowed");
    await expect(box.locator('[data-field="allow-replace"]')).toHaveText("allowed");
  } finally {
    await removeKluster(page, kname);
  }
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("pool settings post as a plain form; a refused taint comes back named, with what was typed", async ({ page }) => {
    await signIn(page, "alice", { js: false });
    await page.goto("/klusters/new");
    const kname = unique("optnj");
    await page.getByLabel("Kluster name").fill(kname);
    await page.getByLabel("Nodes").fill("0");
    await page.locator("#pool-0-labels").fill("team=nojs");
    await page.getByRole("button", { name: "Create kluster" }).click();
    await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));
    try {
      const box = page.locator('[data-pool-options="pool"]');
      await expect(box.locator('[data-field="labels"]')).toHaveText("team=nojs");

      await box.getByText("Change settings of pool pool…").click();
      await box.getByLabel("Labels").fill("team=nojs\nzone=b");
      await box.getByLabel("Taints").fill("dedicated=gpu:Sometimes");
      await box.getByRole("button", { name: "Save settings" }).click();
      await expect(page).toHaveURL(new RegExp(`/klusters/${kname}\\?error=invalid&retry=1$`));
      await expect(box.locator("#pool-0-opt-taints-error")).toContainText("spec.nodePools[0].taints[0]");
      await expect(box.getByLabel("Taints")).toHaveValue("dedicated=gpu:Sometimes");
      await expect(box.getByLabel("Labels")).toHaveValue("team=nojs\nzone=b");
      await expect(box.locator('[data-field="taints"]')).toHaveText("none");

      await box.getByLabel("Taints").fill("dedicated=gpu:NoSchedule");
      await box.getByRole("button", { name: "Save settings" }).click();
      await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));
      await expect(box.locator('[data-field="labels"]')).toContainText("zone=b");
      await expect(box.locator('[data-field="taints"]')).toHaveText("dedicated=gpu:NoSchedule");
    } finally {
      await removeKluster(page, kname);
    }
  });
});
