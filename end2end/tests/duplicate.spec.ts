// "Create a kluster like this one" (issue 35, item 6): from a kluster's page, the create form
// comes filled from it (pools with labels, taints and update policy, version, SSH key) with a
// new name; the copy is created and, read back through the API, has the same pools and a
// pod range of its own. A source that does not exist leaves the form empty with a sentence;
// with and without JavaScript. Real server, real Keystone, embedded controller.
import { expect, type Page } from "@playwright/test";
import { test, signIn, unique, scriptHeaders, removeKluster, apiKluster } from "./support";

/** Creates the source through the create form's server function: two pools with settings. */
async function createSource(page: Page, name: string) {
  const res = await page.request.post("/api/create_kluster", {
    headers: scriptHeaders(),
    form: {
      "form[name]": name,
      "form[ssh_public_key]": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDupl e2e@test",
      "form[pools][0][name]": "front",
      "form[pools][0][flavor]": "m1.small",
      "form[pools][0][availability_zone]": "az-a",
      "form[pools][0][size]": "1",
      "form[pools][0][labels]": "team=dup\ntier=web",
      "form[pools][0][taints]": "dedicated=web:NoSchedule",
      "form[pools][0][allow_replace]": "on",
      "form[pools][1][name]": "batch",
      "form[pools][1][flavor]": "m1.medium",
      "form[pools][1][availability_zone]": "az-b",
      "form[pools][1][size]": "0",
      "form[pools][1][allow_reboot]": "on",
    },
  });
  expect(res.status(), await res.text()).toBeLessThan(400);
}

test("duplicate creates a second kluster with the same pools and another pod range", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, "alice");
  const source = unique("dup");
  const copy = `${source}-copy`;
  await createSource(page, source);
  try {
    await page.goto(`/klusters/${source}`);
    await page.getByRole("link", { name: "Create a kluster like this one" }).click();
    await expect(page).toHaveURL(new RegExp(`/klusters/new\\?from=${source}$`));
    await page.waitForSelector("body[data-hydrated]");
    await expect(page.locator("#copy-notice")).toContainText(`Copied from kluster ${source}`);
    await expect(page.getByLabel("Kluster name")).toHaveValue(copy);
    await expect(page.locator("#pool-0-name")).toHaveValue("front");
    await expect(page.locator("#pool-0-labels")).toHaveValue("team=dup\ntier=web");
    await expect(page.locator("#pool-0-taints")).toHaveValue("dedicated=web:NoSchedule");
    await expect(page.locator("#pool-1-name")).toHaveValue("batch");
    await expect(page.locator("#pool-1-flavor")).toHaveValue("m1.medium");
    await expect(page.locator("#pool-1-zone")).toHaveValue("az-b");
    await expect(page.locator("#cluster_cidr")).toHaveValue("");
    await page.getByRole("button", { name: "Create kluster" }).click();
    await expect(page).toHaveURL(new RegExp(`/klusters/${copy}$`));

    // Through the API: the same pools, the same key, a pod range of its own.
    const [a, b] = [await apiKluster(page, source), await apiKluster(page, copy)];
    expect(b.spec.nodePools).toEqual(a.spec.nodePools);
    expect(b.spec.nodePools.map((p: { name: string }) => p.name)).toEqual(["front", "batch"]);
    expect(b.spec.sshPublicKey).toBe(a.spec.sshPublicKey);
    expect(b.spec.version).toBe(a.spec.version);
    expect(a.spec.clusterCIDR).toBeTruthy();
    expect(b.spec.clusterCIDR).toBeTruthy();
    expect(b.spec.clusterCIDR).not.toBe(a.spec.clusterCIDR);
  } finally {
    await removeKluster(page, copy);
    await removeKluster(page, source);
  }
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the filled form posts as a plain form; a source that is not there leaves it empty", async ({ page }) => {
    await signIn(page, "alice", { js: false });
    const source = unique("dupnj");
    const copy = `${source}-copy`;
    await createSource(page, source);
    try {
      await page.goto("/klusters/new?from=no-such-kluster");
      await expect(page.getByText("There is no kluster no-such-kluster to copy in this project. The form starts empty.")).toBeVisible();
      await expect(page.getByLabel("Kluster name")).toHaveValue("");
      await expect(page.locator("#pool-0-name")).toHaveValue("pool");

      await page.goto(`/klusters/${source}`);
      await page.getByRole("link", { name: "Create a kluster like this one" }).click();
      await expect(page.getByLabel("Kluster name")).toHaveValue(copy);
      await expect(page.locator("#pool-1-flavor")).toHaveValue("m1.medium");
      await page.getByRole("button", { name: "Create kluster" }).click();
      await expect(page).toHaveURL(new RegExp(`/klusters/${copy}$`));
      const [a, b] = [await apiKluster(page, source), await apiKluster(page, copy)];
      expect(b.spec.nodePools).toEqual(a.spec.nodePools);
      expect(b.spec.clusterCIDR).not.toBe(a.spec.clusterCIDR);
    } finally {
      await removeKluster(page, copy);
      await removeKluster(page, source);
    }
  });
});
