// The dashboard on a real cloud: a second server whose embedded controller provisions into
// the test OpenStack (scripts/openstack.sh: Nova with the fake driver, Neutron, Glance, …),
// each kluster booted by a Keystone user of its own. The form's pickers come from the real
// cloud; the servers are counted in Nova directly; the quota warning is Nova's own 403.
// Skipped unless scripts/test started that server (MC_OS_BASE_URL; it does so as root).
import { expect, type APIRequestContext } from "@playwright/test";
import { test, signIn, unique } from "./support";

const base = process.env.MC_OS_BASE_URL;
const env = (name: string) => process.env[`MC_TEST_OS_${name}`] ?? "";
test.skip(!base, "MC_OS_BASE_URL is unset: no server on the test OpenStack");
test.use({ baseURL: base });

/** alice's token for project demo, from the test Keystone. */
async function token(request: APIRequestContext): Promise<string> {
  const res = await request.post(`${env("AUTH_URL")}/auth/tokens`, {
    data: { auth: { identity: { methods: ["password"], password: { user: {
      name: "alice", domain: { name: "demo" }, password: "alice-secret" } } },
      scope: { project: { id: env("DEMO_PROJECT_ID") } } } },
  });
  expect(res.status()).toBe(201);
  return res.headers()["x-subject-token"];
}

type NovaServer = { id: string; status: string; metadata: Record<string, string>;
  flavor: { original_name: string }; user_id: string; "OS-EXT-STS:task_state": string | null };

/** Kluster `name`'s servers in Nova that are not being deleted. */
async function servers(request: APIRequestContext, tok: string, name: string): Promise<NovaServer[]> {
  const res = await request.get(`${env("COMPUTE_URL")}/servers/detail?tags=kluster=${name}`, {
    headers: { "X-Auth-Token": tok, "OpenStack-API-Version": "compute 2.67" },
  });
  expect(res.status()).toBe(200);
  const all: NovaServer[] = (await res.json()).servers;
  return all.filter((s) => s["OS-EXT-STS:task_state"] !== "deleting");
}

test("alice creates a kluster on the real cloud, hits Nova's quota live, and deletes it without debris", async ({ page, request }) => {
  test.setTimeout(240_000);
  const tok = await token(request);
  await signIn(page, "alice");
  await page.goto("/klusters/new");
  await page.waitForSelector("body[data-hydrated]");

  // The pickers offer what the real cloud has: its flavors and its zone.
  const flavor = page.getByLabel("Flavor");
  await expect(flavor.locator("option", { hasText: "m1.small" })).toHaveCount(1);
  await flavor.selectOption("m1.small");
  await page.getByLabel("Zone").selectOption("nova");
  const kname = unique("real");
  await page.getByLabel("Kluster name").fill(kname);
  await page.getByLabel("Nodes").fill("2");
  await page.getByRole("button", { name: "Create kluster" }).click();
  await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));

  // 2 ACTIVE servers in Nova with the kluster's flavor, image and metadata, booted by its
  // own user (not alice, whose token this is).
  await expect(async () => {
    const s = await servers(request, tok, kname);
    expect(s.map((x) => x.status)).toEqual(["ACTIVE", "ACTIVE"]);
  }).toPass({ timeout: 90_000 });
  for (const s of await servers(request, tok, kname)) {
    expect(s.flavor.original_name).toBe("m1.small");
    expect(s.metadata.kluster).toBe(kname);
  }
  const pool = page.locator("tr[data-pool]").first();
  await expect(pool.locator('[data-count="running"]')).toHaveText("2", { timeout: 60_000 });
  // Nobody knows the nodes' health without the kluster's own API: the page says so.
  await expect(pool.locator('[data-count="healthy"]')).toHaveText("unknown");
  await expect(page.locator("#phase")).toHaveText("Running", { timeout: 60_000 });

  // Past the project's instance quota (6): Nova's own 403 arrives live, with the next step.
  const poolName = (await pool.getAttribute("data-pool")) ?? "";
  await page.getByLabel(`Size of pool ${poolName}`).fill("7");
  await pool.getByRole("button", { name: "Scale" }).click();
  const warning = page.locator("li", { hasText: "FailedCreateNode" }).filter({ hasText: "Quota exceeded" }).first();
  await expect(warning).toBeVisible({ timeout: 90_000 });
  await expect(warning).toContainText("ask your cloud admin for more quota");

  // Deleted: none of its servers is left in Nova.
  await page.getByText("Delete this kluster…").click();
  await page.getByLabel(/Type .* to confirm/).fill(kname);
  await page.getByRole("button", { name: "Delete kluster" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(async () => {
    expect(await servers(request, tok, kname)).toEqual([]);
    await page.goto("/");
    await expect(page.getByRole("link", { name: kname })).toHaveCount(0);
  }).toPass({ timeout: 120_000 });
});
