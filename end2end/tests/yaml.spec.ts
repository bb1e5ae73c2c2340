// The kluster as YAML (issue 35, item 5): a read-only view; an edit previewed field by
// field and then applied, read back through the API; YAML that does not parse, a field the
// API does not have and an immutable field refused in words with the text kept; an apply
// after someone else changed the kluster refused (412) with nothing applied. With and
// without JavaScript. Real server, real Keystone, embedded controller.
import { expect, type Page } from "@playwright/test";
import { test, signIn, unique, scriptHeaders, removeKluster, apiKluster, createEmptyKluster } from "./support";

const editor = (page: Page) => page.locator("#yaml-edit");

test("an edit is previewed field by field, applied, and a stale one is refused", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, "alice");
  const kname = unique("yaml");
  await createEmptyKluster(page, kname);
  try {
    await page.goto(`/klusters/${kname}`);
    await page.getByRole("link", { name: "YAML" }).click();
    await expect(page).toHaveURL(new RegExp(`/klusters/${kname}/yaml$`));
    await page.waitForSelector("body[data-hydrated]");
    await expect(page.locator("#kluster-yaml")).toContainText(`name: ${kname}`);
    await expect(page.locator("#kluster-yaml")).toContainText("phase:");

    // A field the API does not have: refused in words, the text kept.
    const text = await editor(page).inputValue();
    expect(text).toContain("size: 0");
    await editor(page).fill(text.replace("size: 0", "size: 0\n    sise: 2"));
    await page.getByRole("button", { name: "Preview changes" }).click();
    await expect(page.locator("#yaml-error")).toContainText("unknown field `sise`");
    await expect(page.locator("#yaml-error")).toContainText("spec.nodePools[0]");
    await expect(editor(page)).toHaveValue(/sise: 2/);

    // An immutable field: the API's own words, naming it.
    await editor(page).fill(text.replace(/serviceCIDR: .*/, "serviceCIDR: 10.9.0.0/16"));
    await page.getByRole("button", { name: "Preview changes" }).click();
    await expect(page.locator("#yaml-error")).toContainText("spec.serviceCIDR: The service CIDR cannot change");

    // A good edit: previewed, then applied.
    await editor(page).fill(text.replace("size: 0", "size: 1\n    labels:\n    - team=yaml"));
    await page.getByRole("button", { name: "Preview changes" }).click();
    const changes = page.locator("#yaml-changes");
    await expect(changes).toContainText("spec.nodePools[0].size");
    await expect(changes).toContainText("spec.nodePools[0].labels[0]");
    expect((await apiKluster(page, kname)).spec.nodePools[0].size).toBe(0);
    await page.getByRole("button", { name: "Apply these changes" }).click();
    await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));
    let k = await apiKluster(page, kname);
    expect([k.spec.nodePools[0].size, k.spec.nodePools[0].labels]).toEqual([1, ["team=yaml"]]);

    // Previewed, then someone else scales the pool: the apply is refused, nothing applied.
    await page.goto(`/klusters/${kname}/yaml`);
    await page.waitForSelector("body[data-hydrated]");
    const now = await editor(page).inputValue();
    await editor(page).fill(now.replace("team=yaml", "team=stale"));
    await page.getByRole("button", { name: "Preview changes" }).click();
    await expect(page.locator("#yaml-changes")).toContainText("spec.nodePools[0].labels[0]");
    const scaled = await page.request.post("/api/scale_pool", {
      headers: scriptHeaders(),
      form: { name: kname, pool: "pool", size: "0" },
    });
    expect(scaled.status(), await scaled.text()).toBe(200);
    await page.getByRole("button", { name: "Apply these changes" }).click();
    await expect(page.locator("#yaml-error")).toContainText("Someone else changed this kluster");
    await expect(editor(page)).toHaveValue(/team=stale/);
    k = await apiKluster(page, kname);
    expect([k.spec.nodePools[0].size, k.spec.nodePools[0].labels]).toEqual([0, ["team=yaml"]]);
  } finally {
    await removeKluster(page, kname);
  }
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("preview and apply post as plain forms; bad YAML comes back with the text", async ({ page }) => {
    await signIn(page, "alice", { js: false });
    const kname = unique("yamlnj");
    await createEmptyKluster(page, kname);
    try {
      await page.goto(`/klusters/${kname}/yaml`);
      const text = await editor(page).inputValue();
      await editor(page).fill("name: [unclosed");
      await page.getByRole("button", { name: "Preview changes" }).click();
      await expect(page).toHaveURL(new RegExp(`/klusters/${kname}/yaml\\?preview=1$`));
      await expect(page.locator("#yaml-error")).toContainText("The YAML cannot be read");
      await expect(editor(page)).toHaveValue("name: [unclosed");

      await editor(page).fill(text.replace("size: 0", "size: 2"));
      await page.getByRole("button", { name: "Preview changes" }).click();
      await expect(page.locator("#yaml-changes")).toContainText("spec.nodePools[0].size");
      await page.getByRole("button", { name: "Apply these changes" }).click();
      await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));
      expect((await apiKluster(page, kname)).spec.nodePools[0].size).toBe(2);
    } finally {
      await removeKluster(page, kname);
    }
  });
});
