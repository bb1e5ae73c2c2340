//! Conformance: every implemented operation is called through the real router (real
//! SQLite, real Keystone) and each response body is validated against the swagger
//! definition for its path, method and status — parsed from the YAML at test time.

use crate::common::*;
use serde_json::{json, Value};

/// The spec as JSON.
fn spec() -> Value {
    let text = include_str!("../../src/api/swagger.yml");
    serde_yaml::from_str(text).expect("swagger parses")
}

/// Resolves `$ref`s of the form `#/definitions/X`.
fn resolve<'a>(spec: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.strip_prefix("#/definitions/").expect("local ref");
            resolve(spec, &spec["definitions"][name])
        }
        None => schema,
    }
}

/// Validates `v` against `schema`; pushes one line per violation.
fn check(spec: &Value, schema: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    let s = resolve(spec, schema);
    if v.is_null() {
        if s.get("x-nullable") != Some(&json!(true)) {
            errs.push(format!("{at}: null where the spec does not allow it"));
        }
        return;
    }
    if let Some(allowed) = s.get("enum").and_then(Value::as_array) {
        if !allowed.contains(v) {
            errs.push(format!("{at}: {v} not in enum {allowed:?}"));
        }
    }
    let ty = s
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or(if s.get("properties").is_some() {
            "object"
        } else {
            ""
        });
    match ty {
        "object" => {
            let Some(obj) = v.as_object() else {
                return errs.push(format!("{at}: expected an object, got {v}"));
            };
            let props = s.get("properties").and_then(Value::as_object);
            for req in s
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let key = req.as_str().unwrap_or_default();
                if !obj.contains_key(key) {
                    errs.push(format!("{at}: required property {key:?} missing"));
                }
            }
            for (k, val) in obj {
                match props.and_then(|p| p.get(k)) {
                    Some(ps) => check(spec, ps, val, &format!("{at}.{k}"), errs),
                    None if props.is_some() => {
                        errs.push(format!("{at}: property {k:?} is not in the spec"))
                    }
                    None => {}
                }
            }
        }
        "array" => {
            let Some(items) = v.as_array() else {
                return errs.push(format!("{at}: expected an array, got {v}"));
            };
            for (i, item) in items.iter().enumerate() {
                check(spec, &s["items"], item, &format!("{at}[{i}]"), errs);
            }
        }
        "string" => {
            let Some(text) = v.as_str() else {
                return errs.push(format!("{at}: expected a string, got {v}"));
            };
            if let Some(p) = s.get("pattern").and_then(Value::as_str) {
                if !text.is_empty() || !p.ends_with(")?$") {
                    let re = regex::Regex::new(p).expect("spec pattern compiles");
                    if !re.is_match(text) {
                        errs.push(format!("{at}: {text:?} does not match {p}"));
                    }
                }
            }
            if let Some(max) = s.get("maxLength").and_then(Value::as_u64) {
                if text.chars().count() as u64 > max {
                    errs.push(format!("{at}: longer than {max}"));
                }
            }
        }
        "integer" => {
            let Some(n) = v.as_i64() else {
                return errs.push(format!("{at}: expected an integer, got {v}"));
            };
            if s.get("minimum")
                .and_then(Value::as_i64)
                .is_some_and(|m| n < m)
                || s.get("maximum")
                    .and_then(Value::as_i64)
                    .is_some_and(|m| n > m)
            {
                errs.push(format!("{at}: {n} out of range"));
            }
        }
        "boolean" if !v.is_boolean() => errs.push(format!("{at}: expected a boolean, got {v}")),
        _ => {}
    }
}

/// The schema the spec gives for (path template, method, status), falling back to `default`.
fn response_schema<'a>(
    spec: &'a Value,
    path: &str,
    method: &str,
    status: u16,
) -> Option<&'a Value> {
    let responses = &spec["paths"][path][method]["responses"];
    assert!(!responses.is_null(), "{method} {path} is not in the spec");
    let r = responses
        .get(status.to_string())
        .or_else(|| responses.get("default"))?;
    r.get("schema").or_else(|| {
        r.get("$ref")
            .map(|_| &spec["responses"]["errorResponse"]["schema"])
    })
}

/// Calls the API and validates the answer; returns it.
async fn conform(
    app: &axum::Router,
    method: &str,
    template: &str,
    path: &str,
    tok: Option<&str>,
    body: Option<String>,
) -> (u16, Value) {
    let (status, v) = call(app, method, path, tok, body).await;
    let spec = spec();
    let mut errs = Vec::new();
    match response_schema(&spec, template, &method.to_lowercase(), status) {
        Some(schema) => check(&spec, schema, &v, "$", &mut errs),
        None => assert!(
            v.is_null(),
            "{method} {path} → {status} has a body the spec does not describe: {v}"
        ),
    }
    assert!(
        errs.is_empty(),
        "{method} {path} → {status} breaks the spec:\n{}",
        errs.join("\n")
    );
    (status, v)
}

#[tokio::test]
async fn every_implemented_operation_answers_as_the_swagger_says() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;
    let c = "/api/v1/clusters";
    let one = "/api/v1/clusters/{name}";
    assert_eq!(
        conform(&app, "GET", "/info", "/info", None, None).await.0,
        200
    );
    assert_eq!(
        conform(&app, "GET", "/api", "/api", None, None).await.0,
        200
    );
    let full = json!({"name": "conf", "spec": {"sshPublicKey": "ssh-ed25519 AAAAC3 me", "nodePools": [
        {"name": "small", "size": 2, "flavor": "m1.small", "availabilityZone": "az-a",
         "labels": ["team=a"], "taints": ["dedicated=x:NoSchedule"], "customRootDiskSize": 64}]}});
    let (s, k) = conform(&app, "POST", c, c, Some(&alice), Some(full.to_string())).await;
    assert_eq!(s, 201);
    assert_eq!(conform(&app, "GET", c, c, Some(&bob), None).await.0, 200);
    assert_eq!(
        conform(&app, "GET", one, "/api/v1/clusters/conf", Some(&bob), None)
            .await
            .0,
        200
    );
    let mut upd = k.clone();
    upd["spec"]["nodePools"][0]["size"] = json!(3);
    assert_eq!(
        conform(
            &app,
            "PUT",
            one,
            "/api/v1/clusters/conf",
            Some(&alice),
            Some(upd.to_string())
        )
        .await
        .0,
        200
    );
    for (t, p) in [
        (
            "/api/v1/clusters/{name}/events",
            "/api/v1/clusters/conf/events",
        ),
        ("/api/v1/clusters/{name}/info", "/api/v1/clusters/conf/info"),
        (
            "/api/v1/clusters/{name}/credentials",
            "/api/v1/clusters/conf/credentials",
        ),
    ] {
        assert_eq!(
            conform(&app, "GET", t, p, Some(&bob), None).await.0,
            200,
            "{p}"
        );
    }
    let t = "/api/v1/openstack/metadata";
    assert_eq!(conform(&app, "GET", t, t, Some(&alice), None).await.0, 200);
    let t = "/api/v1/clusters/{name}/bootstrap";
    assert_eq!(
        conform(
            &app,
            "GET",
            t,
            "/api/v1/clusters/conf/bootstrap",
            Some(&alice),
            None
        )
        .await
        .0,
        200
    );
    let t = "/api/v1/clusters/{name}/kubeadmsecret";
    assert_eq!(
        conform(
            &app,
            "GET",
            t,
            "/api/v1/clusters/conf/kubeadmsecret",
            Some(&alice),
            None
        )
        .await
        .0,
        404
    );
    let account = account_of(&alice).await;
    let t = "/api/v1/{account}/clusters/{name}/values";
    let p = format!("/api/v1/{account}/clusters/conf/values");
    assert_eq!(
        conform(&app, "GET", t, &p, Some(&cloud_admin_token().await), None)
            .await
            .0,
        200
    );
    // Errors: every one must be the spec's `error` body.
    let t = "/api/v1/clusters/{name}/credentials/oidc";
    assert_eq!(
        conform(
            &app,
            "GET",
            t,
            "/api/v1/clusters/conf/credentials/oidc",
            Some(&bob),
            None
        )
        .await
        .0,
        404
    );
    assert_eq!(conform(&app, "GET", c, c, None, None).await.0, 401);
    assert_eq!(
        conform(&app, "POST", c, c, Some(&bob), Some(full.to_string()))
            .await
            .0,
        403
    );
    let (s, clash) = conform(&app, "POST", c, c, Some(&alice), Some(full.to_string())).await;
    assert_eq!(s, 409);
    // The extensions are in the spec (the checker validated them) and say what happened.
    assert_eq!(clash["reason"], "NameTaken", "{clash}");
    assert_eq!(clash["fields"][0]["path"], "name", "{clash}");
    assert_eq!(
        conform(&app, "POST", c, c, Some(&alice), Some("{".into()))
            .await
            .0,
        422
    );
    let bad_pool = json!({"name": "conf2", "spec": {"nodePools": [
        {"name": "small", "size": 500, "flavor": "m1.small", "availabilityZone": "az-a"}]}});
    let (s, invalid) = conform(&app, "POST", c, c, Some(&alice), Some(bad_pool.to_string())).await;
    assert_eq!(s, 422);
    assert_eq!(invalid["reason"], "Validation", "{invalid}");
    assert_eq!(
        invalid["fields"][0]["path"], "spec.nodePools[0].size",
        "{invalid}"
    );
    assert_eq!(
        conform(&app, "GET", one, "/api/v1/clusters/none", Some(&bob), None)
            .await
            .0,
        404
    );
    assert_eq!(
        conform(
            &app,
            "DELETE",
            one,
            "/api/v1/clusters/conf",
            Some(&alice),
            None
        )
        .await
        .0,
        202
    );
}

#[test]
fn the_spec_lists_every_error_reason_and_event_detail_the_code_knows() {
    let spec = spec();
    let listed = |v: &Value| -> Vec<String> {
        v.as_array()
            .expect("an enum")
            .iter()
            .map(|x| x.as_str().unwrap_or_default().to_string())
            .collect()
    };
    let reasons = listed(&spec["definitions"]["error"]["properties"]["reason"]["enum"]);
    let known: Vec<String> = kluster::ErrorReason::known()
        .map(|r| r.as_str().to_string())
        .collect();
    assert_eq!(reasons, known);
    let details = listed(&spec["definitions"]["Event"]["properties"]["detail"]["enum"]);
    for d in &details {
        assert_ne!(
            kluster::EventDetail::parse(d),
            kluster::EventDetail::Other(d.clone()),
            "{d}"
        );
    }
    assert_eq!(details, ["QuotaExceeded", "SeveralRouters"]);
}

#[test]
fn the_checker_catches_violations() {
    let spec = spec();
    let kluster_schema = json!({"$ref": "#/definitions/Kluster"});
    let mut errs = Vec::new();
    check(
        &spec,
        &kluster_schema,
        &json!({"name": "Bad_Name", "extra": 1, "spec": {"nodePools": [{"name": "p", "size": 500}]}}),
        "$",
        &mut errs,
    );
    let all = errs.join("\n");
    for needle in [
        "does not match",
        "\"extra\" is not in the spec",
        "required property \"flavor\"",
        "out of range",
    ] {
        assert!(all.contains(needle), "checker missed {needle}: {all}");
    }
}
