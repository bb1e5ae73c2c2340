// Create as YAML (issue 35, item 5): the create form's values become a kluster's YAML with
// "Edit as YAML"; the YAML goes back to the form ("Back to the form") or creates the kluster
// ("Create kluster"). YAML that is not a kluster is refused in words with the text kept.
// With and without JavaScript. Real server, real Keystone, embedded controller.
import { expect, type Page } from "@playwright/test";
import { test, signIn, unique, removeKluster, apiKluster } from "./support";

/** Fills the form with `name` and a pool of 1 node, then switches to YAML. */
async function toYaml(page: Page, name: string) {
  await page.getByLabel("Kluster name").fill(name);
  await page.locator("#pool-0-name").fill("edge");
  await page.locator("#pool-0-size").fill("1");
  await page.getByRole("button", { name: "Edit as YAML" }).click();
  await expect(page).toHaveURL(/\/klusters\/new\?yaml=1$/);
  const text = page.getByLabel("Kluster YAML");
  await expect(text).toHaveValue(new RegExp(`name: ${name}`));
  await expect(text).toHaveValue(/name: edge/);
  await expect(text).toHaveValue(/size: 1/);
  return text;
}

/** The whole round: form → YAML → form → YAML → refused → created, read back through the API. */
async function round(page: Page, js: boolean, prefix: string) {
  await signIn(page, "alice", { js });
  const name = unique(prefix);
  try {
    await page.goto("/klusters/new");
    if (js) await page.waitForSelector("body[data-hydrated]");
    let text = await toYaml(page, name);

    // An edit in the YAML shows in the form.
    await text.fill((await text.inputValue()).replace("size: 1", "size: 3"));
    await page.getByRole("button", { name: "Back to the form" }).click();
    await expect(page).toHaveURL(/\/klusters\/new\?draft=1$/);
    await expect(page.locator("#copy-notice")).toContainText("The form holds what the YAML said");
    await expect(page.getByLabel("Kluster name")).toHaveValue(name);
    await expect(page.locator("#pool-0-name")).toHaveValue("edge");
    await expect(page.locator("#pool-0-size")).toHaveValue("3");

    // Back to YAML; text that is not YAML is refused in words and kept.
    if (js) await page.waitForSelector("body[data-hydrated]");
    text = await toYaml(page, name);
    const good = await text.inputValue();
    await text.fill("name: [unclosed");
    await page.getByRole("button", { name: "Create kluster" }).click();
    await expect(page.locator("#create-yaml-error")).not.toBeEmpty();
    await expect(text).toHaveValue("name: [unclosed");

    // An unknown field is named.
    await text.fill(good.replace("size: 1", "size: 2\n    colour: blue"));
    await page.getByRole("button", { name: "Create kluster" }).click();
    await expect(page.locator("#create-yaml-error")).toContainText("colour");
    await expect(page).toHaveURL(/\/klusters\/new\?yaml=1$/);

    // Fixed: created, and the API holds what the YAML said.
    await text.fill(good.replace("size: 1", "size: 2"));
    await page.getByRole("button", { name: "Create kluster" }).click();
    await expect(page).toHaveURL(new RegExp(`/klusters/${name}$`));
    const k = await apiKluster(page, name);
    expect(k.spec.nodePools.map((p: { name: string; size: number }) => [p.name, p.size])).toEqual([["edge", 2]]);
  } finally {
    await removeKluster(page, name);
  }
}

test("the create form goes to YAML and back, and YAML creates the kluster", async ({ page }) => {
  test.setTimeout(90_000);
  await round(page, true, "cyaml");
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the same round as plain form posts", async ({ page }) => {
    test.setTimeout(90_000);
    await round(page, false, "cyamlnj");
  });
});
