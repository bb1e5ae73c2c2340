// SSH key, security group and audit changeable on an existing kluster; the load balancers'
// floating network and audit picked at create (issue 35, item 4). Created in the form with
// the cloud's own choices, read back through the API, changed on the kluster's page (with
// and without JavaScript), and a group the project lacks refused in words with nothing
// changed. Real server, real Keystone, embedded controller (simulated cloud: groups
// default and web, external network public).
import { expect, type Page } from "@playwright/test";
import { test, signIn, unique, scriptHeaders, removeKluster, apiKluster, createEmptyKluster } from "./support";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBaQ0ix8Z3cQ1C2FAkRVkC7Tt5LjlZpNNqKWKqqeE6eB e2e@access";

/** The kluster's spec as the app's server reads it from the controller API. */
const apiSpec = async (page: Page, name: string) => (await apiKluster(page, name)).spec;

/** The value the Specification card shows for `label`. */
const fact = (page: Page, label: string) =>
  page.locator("#spec-h + dl div").filter({ has: page.locator("dt", { hasText: label }) }).locator("dd");

test("floating network and audit at create; key, group and audit changed later", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, "alice");
  await page.goto("/klusters/new");
  await page.waitForSelector("body[data-hydrated]");
  const kname = unique("acc");
  await page.getByLabel("Kluster name").fill(kname);
  await page.getByLabel("Nodes").fill("0");
  await page.getByText("Advanced: network, security, SSH, CIDRs").click();
  await page.getByLabel("Floating IPs for load balancers from").selectOption("net-external");
  await page.getByLabel("Audit log").selectOption("swift");
  await page.getByLabel("Security group").selectOption("web");
  await page.getByRole("button", { name: "Create kluster" }).click();
  await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));
  try {
    await expect(fact(page, "Audit log")).toHaveText("swift");
    await expect(fact(page, "Load-balancer floating IPs from")).toHaveText("net-external");
    await expect(fact(page, "Security group")).toHaveText("web");
    let spec = await apiSpec(page, kname);
    expect([spec.audit, spec.openstack.lbFloatingNetworkID, spec.openstack.securityGroupName]).toEqual([
      "swift",
      "net-external",
      "web",
    ]);

    // Change all three on the kluster's page.
    const card = page.locator("[data-access]");
    await card.getByText("Change access or audit…").click();
    await card.getByLabel("SSH public key").fill(KEY);
    await card.getByLabel("Security group").selectOption("");
    await card.getByLabel("Audit log").selectOption("");
    await card.getByRole("button", { name: "Save access" }).click();
    await expect(fact(page, "Audit log")).toHaveText("off");
    await expect(fact(page, "SSH key")).toHaveText(/^SHA256:/);
    spec = await apiSpec(page, kname);
    expect([spec.sshPublicKey, spec.openstack.securityGroupName ?? "", spec.audit ?? null]).toEqual([KEY, "", null]);
    await expect(card.getByText("Nodes created after a change get the new SSH key and security group.")).toBeVisible();
  } finally {
    await removeKluster(page, kname);
  }
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the access form posts plainly; a group the project lacks is refused in words", async ({ page }) => {
    await signIn(page, "alice", { js: false });
    const kname = unique("accnj");
    await createEmptyKluster(page, kname);
    try {
      await page.goto(`/klusters/${kname}`);
      const card = page.locator("[data-access]");
      await card.getByText("Change access or audit…").click();
      await card.getByLabel("Security group").selectOption("web");
      await card.getByLabel("Audit log").selectOption("stdout");
      await card.getByRole("button", { name: "Save access" }).click();
      await expect(page).toHaveURL(new RegExp(`/klusters/${kname}$`));
      await expect(fact(page, "Security group")).toHaveText("web");
      await expect(fact(page, "Audit log")).toHaveText("stdout");

      // A group that is not the project's (as a stale page or a script would post it).
      const refused = await page.request.post("/api/edit_kluster", {
        headers: scriptHeaders(),
        form: {
          name: kname,
          "edit[op]": "set_access",
          "edit[ssh_public_key]": "",
          "edit[security_group]": "nope",
          "edit[audit]": "",
        },
      });
      const said = await refused.text();
      expect(refused.status(), said).toBe(400);
      expect(said).toContain('\\"nope\\" is not a security group of this project; choose one of default, web');
      const spec = await apiSpec(page, kname);
      expect([spec.openstack.securityGroupName, spec.audit]).toEqual(["web", "stdout"]);
    } finally {
      await removeKluster(page, kname);
    }
  });
});
