//! The smoke suite (Kubernikus's e2e list): one kluster through create → Running → pools
//! running and healthy → credentials → scale up past quota → FailedCreateNode → scale down
//! → delete → no debris. Each step is its own check and prints its time.
//!
//! `cargo test -p controller --test smoke` starts a controller with a fast simulation
//! against the test Keystone (`MC_TEST_KEYSTONE_URL`) and runs every step.
//! `cargo test -p controller --test smoke -- <step>…` runs the named steps (and, against
//! the embedded controller, the steps before them, which set up their state).
//! With `SMOKE_URL` set the steps run against that controller instead, and a named step
//! runs alone — replaying it against the kluster left by earlier runs:
//! `SMOKE_URL=http://127.0.0.1:8080 SMOKE_KEYSTONE_URL=http://127.0.0.1:5000/v3
//!  SMOKE_USER=alice SMOKE_PASSWORD=alice-secret SMOKE_DOMAIN=demo SMOKE_PROJECT=demo
//!  cargo test -p controller --test smoke -- quota_event`.
//! `SMOKE_KLUSTER` names the kluster (default `smoke`), `SMOKE_STEP_SECONDS` bounds each
//! wait (default 60).

#[path = "it/common/mod.rs"]
#[allow(dead_code)]
mod common;

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Ctx {
    http: reqwest::Client,
    base: String,
    token: String,
    name: String,
    wait: Duration,
    /// The embedded controller: its events carry the typed `detail` extension (a real
    /// Kubernikus's do not; there the quota step is recognised by reason and type).
    typed: bool,
}

type StepFn = for<'a> fn(&'a Ctx) -> Pin<Box<dyn Future<Output = Result<(), String>> + 'a>>;

const POOL: i64 = 2;

fn env(key: &str, default: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| default.to_string())
}

impl Ctx {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn kluster_url(&self) -> String {
        self.url(&format!("/api/v1/clusters/{}", self.name))
    }

    async fn send(&self, req: reqwest::RequestBuilder) -> Result<(u16, Value), String> {
        let r = req
            .header("x-auth-token", &self.token)
            .send()
            .await
            .map_err(|e| format!("request failed: {e}"))?;
        let status = r.status().as_u16();
        let text = r.text().await.map_err(|e| e.to_string())?;
        Ok((
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        ))
    }

    async fn get(&self, url: &str) -> Result<(u16, Value), String> {
        self.send(self.http.get(url)).await
    }

    /// Polls `url` until `done` holds, for at most the step wait.
    async fn until(
        &self,
        url: &str,
        what: &str,
        done: impl Fn(u16, &Value) -> bool,
    ) -> Result<Value, String> {
        let deadline = Instant::now() + self.wait;
        loop {
            let (status, v) = self.get(url).await?;
            if done(status, &v) {
                return Ok(v);
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "timed out waiting for {what}; last answer {status} {v}"
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn resize(&self, size: i64) -> Result<(), String> {
        let (_, mut k) = self.get(&self.kluster_url()).await?;
        k["spec"]["nodePools"][0]["size"] = json!(size);
        let (status, v) = self
            .send(self.http.put(self.kluster_url()).body(k.to_string()))
            .await?;
        if status != 200 {
            return Err(format!("resize to {size}: {status} {v}"));
        }
        Ok(())
    }
}

fn create(c: &Ctx) -> Pin<Box<dyn Future<Output = Result<(), String>> + '_>> {
    Box::pin(async move {
        let body = json!({"name": c.name, "spec": {"nodePools": [
            {"name": "pool", "size": POOL, "flavor": "m1.small", "availabilityZone": "az-a"}
        ]}});
        let (status, v) = c
            .send(
                c.http
                    .post(c.url("/api/v1/clusters"))
                    .body(body.to_string()),
            )
            .await?;
        match status {
            201 if v["status"]["phase"] == "Pending" => Ok(()),
            _ => Err(format!("create: {status} {v}")),
        }
    })
}

fn running(c: &Ctx) -> Pin<Box<dyn Future<Output = Result<(), String>> + '_>> {
    Box::pin(async move {
        c.until(&c.kluster_url(), "phase Running", |_, v| {
            v["status"]["phase"] == "Running"
        })
        .await
        .map(drop)
    })
}

fn pools_healthy(c: &Ctx) -> Pin<Box<dyn Future<Output = Result<(), String>> + '_>> {
    Box::pin(async move {
        c.until(
            &c.kluster_url(),
            "every node running and healthy",
            |_, v| {
                let p = &v["status"]["nodePools"][0];
                p["running"] == json!(POOL)
                    && p["healthy"] == json!(POOL)
                    && p["schedulable"] == json!(POOL)
            },
        )
        .await
        .map(drop)
    })
}

fn credentials(c: &Ctx) -> Pin<Box<dyn Future<Output = Result<(), String>> + '_>> {
    Box::pin(async move {
        let (status, v) = c.get(&format!("{}/credentials", c.kluster_url())).await?;
        let kubeconfig = v["kubeconfig"].as_str().unwrap_or_default();
        if status == 200
            && kubeconfig.contains("client-certificate-data:")
            && kubeconfig.contains("certificate-authority-data:")
            && kubeconfig.contains(&c.name)
        {
            Ok(())
        } else {
            Err(format!("credentials: {status} {v}"))
        }
    })
}

fn scale_up_past_quota(c: &Ctx) -> Pin<Box<dyn Future<Output = Result<(), String>> + '_>> {
    Box::pin(async move {
        let (_, q) = c.get(&c.url("/api/v1/openstack/quota")).await?;
        let (_, meta) = c.get(&c.url("/api/v1/openstack/metadata")).await?;
        let flavor = meta["flavors"]
            .as_array()
            .and_then(|f| f.iter().find(|f| f["name"] == "m1.small"))
            .ok_or(format!("no m1.small in {meta}"))?;
        let left =
            |k: &str| q[k]["limit"].as_i64().unwrap_or(0) - q[k]["used"].as_i64().unwrap_or(0);
        let fits = left("instances")
            .min(left("cores") / flavor["vcpus"].as_i64().unwrap_or(1).max(1))
            .min(left("ram") / flavor["ram"].as_i64().unwrap_or(1).max(1))
            .max(0);
        c.resize(POOL + fits + 1).await
    })
}

fn quota_event(c: &Ctx) -> Pin<Box<dyn Future<Output = Result<(), String>> + '_>> {
    Box::pin(async move {
        let events = format!("{}/events", c.kluster_url());
        let v = c
            .until(&events, "a FailedCreateNode event about quota", |_, v| {
                v.as_array().is_some_and(|a| {
                    a.iter().any(|e| {
                        e["reason"] == "FailedCreateNode"
                            && e["type"] == "Warning"
                            && match e.get("detail") {
                                Some(d) => d == "QuotaExceeded",
                                None => !c.typed,
                            }
                    })
                })
            })
            .await?;
        let (_, k) = c.get(&c.kluster_url()).await?;
        let pool = &k["status"]["nodePools"][0];
        if pool["running"].as_i64() >= pool["size"].as_i64() {
            return Err(format!(
                "the pool should be short of its size: {pool} ({v})"
            ));
        }
        Ok(())
    })
}

fn scale_down(c: &Ctx) -> Pin<Box<dyn Future<Output = Result<(), String>> + '_>> {
    Box::pin(async move {
        c.resize(POOL).await?;
        c.until(&c.kluster_url(), "the pool back at its size", |_, v| {
            let p = &v["status"]["nodePools"][0];
            p["size"] == json!(POOL) && p["running"] == json!(POOL) && p["healthy"] == json!(POOL)
        })
        .await
        .map(drop)
    })
}

fn delete(c: &Ctx) -> Pin<Box<dyn Future<Output = Result<(), String>> + '_>> {
    Box::pin(async move {
        let (status, v) = c.send(c.http.delete(c.kluster_url())).await?;
        if status != 202 {
            return Err(format!("delete: {status} {v}"));
        }
        c.until(&c.kluster_url(), "the kluster gone", |s, _| s == 404)
            .await
            .map(drop)
    })
}

fn no_debris(c: &Ctx) -> Pin<Box<dyn Future<Output = Result<(), String>> + '_>> {
    Box::pin(async move {
        let (status, v) = c
            .get(&c.url(&format!("/api/v1/simulator/debris/{}", c.name)))
            .await?;
        match (status, v.as_array()) {
            (200, Some(a)) if a.is_empty() => Ok(()),
            _ => Err(format!("debris left: {status} {v}")),
        }
    })
}

const STEPS: &[(&str, StepFn)] = &[
    ("create", create),
    ("running", running),
    ("pools_healthy", pools_healthy),
    ("credentials", credentials),
    ("scale_up_past_quota", scale_up_past_quota),
    ("quota_event", quota_event),
    ("scale_down", scale_down),
    ("delete", delete),
    ("no_debris", no_debris),
];

async fn token(
    keystone: &str,
    user: &str,
    password: &str,
    domain: &str,
    project: &str,
) -> Result<String, String> {
    let t = keystone::Client::new(keystone)
        .map_err(|e| e.to_string())?
        .password_auth(&keystone::PasswordAuth {
            user_name: user,
            password,
            user_domain: domain,
            project: keystone::ProjectRef::Name {
                name: project,
                domain,
            },
        })
        .await
        .map_err(|e| format!("sign-in as {user}: {e}"))?;
    Ok(t.secret.expose().to_string())
}

#[tokio::main]
async fn main() -> ExitCode {
    // Arguments cargo's test runner may pass are ignored; the rest name steps.
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if let Some(bad) = wanted.iter().find(|w| !STEPS.iter().any(|(n, _)| n == w)) {
        eprintln!(
            "smoke: no step {bad:?}; steps: {}",
            STEPS.iter().map(|s| s.0).collect::<Vec<_>>().join(", ")
        );
        return ExitCode::FAILURE;
    }
    let wait = Duration::from_secs(env("SMOKE_STEP_SECONDS", "60").parse().unwrap_or(60));
    let external = std::env::var("SMOKE_URL").ok();
    let (base, token, _running, _dir) = match &external {
        Some(url) => {
            let t = token(
                &env("SMOKE_KEYSTONE_URL", "http://127.0.0.1:5000/v3"),
                &env("SMOKE_USER", "alice"),
                &env("SMOKE_PASSWORD", "alice-secret"),
                &env("SMOKE_DOMAIN", "demo"),
                &env("SMOKE_PROJECT", "demo"),
            )
            .await;
            match t {
                Ok(t) => (url.trim_end_matches('/').to_string(), t, None, None),
                Err(e) => {
                    eprintln!("smoke: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        None => {
            let Ok(keystone) = std::env::var("MC_TEST_KEYSTONE_URL") else {
                eprintln!("smoke: MC_TEST_KEYSTONE_URL is not set: run the suite with scripts/test, or set SMOKE_URL");
                return ExitCode::FAILURE;
            };
            let dir = std::env::temp_dir().join(format!("mc-smoke-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let config = common::fast_controller(&keystone, &dir, Duration::from_millis(800));
            let running = match controller::run::start(config, std::future::pending()).await {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("smoke: cannot start the controller: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let t = match token(&keystone, "alice", "alice-secret", "demo", "demo").await {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("smoke: {e}");
                    return ExitCode::FAILURE;
                }
            };
            (
                format!("http://{}", running.addr),
                t,
                Some(running),
                Some(dir),
            )
        }
    };
    let ctx = Ctx {
        http: reqwest::Client::new(),
        base,
        token,
        name: env("SMOKE_KLUSTER", "smoke"),
        wait,
        typed: external.is_none(),
    };
    // Against the embedded controller a named step needs the steps before it.
    let last = wanted
        .iter()
        .filter_map(|w| STEPS.iter().position(|(n, _)| n == w))
        .max();
    let run: Vec<&(&str, StepFn)> = STEPS
        .iter()
        .enumerate()
        .filter(|(i, (n, _))| match (&external, last) {
            (_, None) => true,
            (Some(_), Some(_)) => wanted.iter().any(|w| w == n),
            (None, Some(l)) => *i <= l,
        })
        .map(|(_, s)| s)
        .collect();
    let t0 = Instant::now();
    println!("smoke: {} step(s) against {}", run.len(), ctx.base);
    for (name, step) in run {
        let t = Instant::now();
        match step(&ctx).await {
            Ok(()) => println!(
                "smoke: {name:<20} ok   {:>7.2} s",
                t.elapsed().as_secs_f64()
            ),
            Err(e) => {
                println!(
                    "smoke: {name:<20} FAILED after {:.2} s: {e}",
                    t.elapsed().as_secs_f64()
                );
                return ExitCode::FAILURE;
            }
        }
    }
    println!("smoke: all passed in {:.2} s", t0.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}
