// The colour scheme a user picks in the header sticks: it beats the system's preference,
// survives a reload, and works as a plain form post (JavaScript off too).
import { expect } from "@playwright/test";
import { test, signIn } from "./support";

// The body's computed background; only read with JavaScript on (the class is checked in
// both runs).
const background = (page: import("@playwright/test").Page, js: boolean) =>
  js ? page.evaluate(() => getComputedStyle(document.body).backgroundColor) : Promise.resolve("");

for (const js of [true, false]) {
  test(`light, dark and system stick across pages (JavaScript ${js ? "on" : "off"})`, async ({ browser }) => {
    const ctx = await browser.newContext({ javaScriptEnabled: js, colorScheme: "light" });
    const page = await ctx.newPage();
    await signIn(page, "alice", { js });
    await expect(page.locator("html")).toHaveClass("system");
    const light = await background(page, js);

    const picker = page.getByRole("form", { name: "Colour scheme" });
    await picker.getByRole("button", { name: "Dark" }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.locator("html")).toHaveClass("dark");
    const dark = await background(page, js);
    if (js) expect(dark, "dark beats the system's light").not.toBe(light);
    await page.reload();
    await expect(page.locator("html")).toHaveClass("dark");
    await page.goto("/timeline");
    await expect(page.locator("html")).toHaveClass("dark");

    await page.emulateMedia({ colorScheme: "dark" });
    await page.getByRole("form", { name: "Colour scheme" }).getByRole("button", { name: "Light" }).click();
    await expect(page).toHaveURL(/\/timeline$/);
    await expect(page.locator("html")).toHaveClass("light");
    expect(await background(page, js), "light beats the system's dark").toBe(light);

    await page.getByRole("form", { name: "Colour scheme" }).getByRole("button", { name: "System" }).click();
    await expect(page.locator("html")).toHaveClass("system");
    expect(await background(page, js), "the system's dark again").toBe(dark);
    await ctx.close();
  });
}
