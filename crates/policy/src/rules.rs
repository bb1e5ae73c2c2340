//! Oslo-style policy rules (`kubernikus-policy.json`): `role:x`, `rule:x`, `field:value`,
//! `@`, `!`, `and`, `or`, `not` and parentheses, evaluated per API operation.

use std::collections::HashMap;

/// The caller's attributes rules can test.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Creds {
    /// Keystone user id.
    pub user_id: String,
    /// Project id (Kubernikus's account).
    pub project_id: String,
    /// Project name.
    pub project_name: String,
    /// The user's domain name.
    pub domain_name: String,
    /// Roles on the project.
    pub roles: Vec<String>,
}

/// A parsed rule.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Rule {
    Always,
    Never,
    Role(String),
    Ref(String),
    Field(String, String),
    Not(Box<Rule>),
    And(Vec<Rule>),
    Or(Vec<Rule>),
}

/// Why a policy file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// Not a JSON object of strings.
    #[error("policy file is not a JSON object of rule strings: {0}")]
    Json(String),
    /// A rule does not parse.
    #[error("rule {name:?}: {message}")]
    Syntax {
        /// The rule's name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// A rule refers to a rule that does not exist.
    #[error("rule {name:?} refers to unknown rule {target:?}")]
    UnknownRule {
        /// The rule's name.
        name: String,
        /// The missing rule.
        target: String,
    },
}

/// A set of named rules.
#[derive(Clone, Debug)]
pub struct Policy {
    rules: HashMap<String, Rule>,
}

/// The Kubernikus rules, built in.
pub const KUBERNIKUS_POLICY: &str = include_str!("kubernikus-policy.json");

impl Policy {
    /// The built-in Kubernikus policy.
    pub fn kubernikus() -> Policy {
        Policy::from_json(KUBERNIKUS_POLICY)
            .unwrap_or_else(|e| panic!("built-in policy is invalid: {e}"))
    }

    /// Parses a policy file (a JSON object of rule strings) and checks its references.
    pub fn from_json(text: &str) -> Result<Policy, PolicyError> {
        let raw: HashMap<String, String> =
            serde_json::from_str(text).map_err(|e| PolicyError::Json(e.to_string()))?;
        let mut rules = HashMap::new();
        for (name, src) in &raw {
            let rule = parse(src).map_err(|message| PolicyError::Syntax {
                name: name.clone(),
                message,
            })?;
            rules.insert(name.clone(), rule);
        }
        let policy = Policy { rules };
        for (name, rule) in &policy.rules {
            let mut refs = Vec::new();
            collect_refs(rule, &mut refs);
            if let Some(target) = refs.into_iter().find(|t| !policy.rules.contains_key(t)) {
                return Err(PolicyError::UnknownRule {
                    name: name.clone(),
                    target,
                });
            }
        }
        Ok(policy)
    }

    /// Whether `creds` may perform `operation` (an operationId). An operation without a
    /// rule is denied.
    pub fn allows(&self, operation: &str, creds: &Creds) -> bool {
        self.rules
            .get(operation)
            .is_some_and(|r| self.eval(r, creds, 0))
    }

    fn eval(&self, rule: &Rule, c: &Creds, depth: usize) -> bool {
        if depth > 32 {
            return false; // a reference cycle denies instead of overflowing the stack
        }
        match rule {
            Rule::Always => true,
            Rule::Never => false,
            Rule::Role(r) => c.roles.iter().any(|x| x.eq_ignore_ascii_case(r)),
            Rule::Ref(name) => self
                .rules
                .get(name)
                .is_some_and(|r| self.eval(r, c, depth + 1)),
            Rule::Field(field, value) => {
                let actual = match field.as_str() {
                    "user_id" => &c.user_id,
                    "project_id" => &c.project_id,
                    "project_name" => &c.project_name,
                    "domain_name" => &c.domain_name,
                    _ => return false,
                };
                actual == value
            }
            Rule::Not(r) => !self.eval(r, c, depth + 1),
            Rule::And(rs) => rs.iter().all(|r| self.eval(r, c, depth + 1)),
            Rule::Or(rs) => rs.iter().any(|r| self.eval(r, c, depth + 1)),
        }
    }
}

fn collect_refs(rule: &Rule, out: &mut Vec<String>) {
    match rule {
        Rule::Ref(n) => out.push(n.clone()),
        Rule::Not(r) => collect_refs(r, out),
        Rule::And(rs) | Rule::Or(rs) => rs.iter().for_each(|r| collect_refs(r, out)),
        _ => {}
    }
}

fn tokenize(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in src.chars() {
        match ch {
            '(' | ')' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                out.push(ch.to_string());
            }
            c if c.is_whitespace() => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Deepest nesting of parentheses and `not`s a rule may have (deeper: a syntax error, not a
/// stack overflow).
const MAX_DEPTH: usize = 32;

fn parse(src: &str) -> Result<Rule, String> {
    let tokens = tokenize(src);
    if tokens.is_empty() {
        return Ok(Rule::Always); // "" allows everyone, as in oslo.policy
    }
    let mut pos = 0;
    let rule = parse_or(&tokens, &mut pos, 0)?;
    if pos != tokens.len() {
        return Err(format!("unexpected {:?}", tokens[pos]));
    }
    Ok(rule)
}

fn parse_or(t: &[String], pos: &mut usize, depth: usize) -> Result<Rule, String> {
    let mut items = vec![parse_and(t, pos, depth)?];
    while t.get(*pos).is_some_and(|x| x == "or") {
        *pos += 1;
        items.push(parse_and(t, pos, depth)?);
    }
    Ok(if items.len() == 1 {
        items.remove(0)
    } else {
        Rule::Or(items)
    })
}

fn parse_and(t: &[String], pos: &mut usize, depth: usize) -> Result<Rule, String> {
    let mut items = vec![parse_not(t, pos, depth)?];
    while t.get(*pos).is_some_and(|x| x == "and") {
        *pos += 1;
        items.push(parse_not(t, pos, depth)?);
    }
    Ok(if items.len() == 1 {
        items.remove(0)
    } else {
        Rule::And(items)
    })
}

fn parse_not(t: &[String], pos: &mut usize, depth: usize) -> Result<Rule, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested more than {MAX_DEPTH} deep"));
    }
    if t.get(*pos).is_some_and(|x| x == "not") {
        *pos += 1;
        return Ok(Rule::Not(Box::new(parse_not(t, pos, depth + 1)?)));
    }
    parse_atom(t, pos, depth)
}

fn parse_atom(t: &[String], pos: &mut usize, depth: usize) -> Result<Rule, String> {
    let tok = t.get(*pos).ok_or("rule ends too early")?;
    *pos += 1;
    match tok.as_str() {
        "(" => {
            let r = parse_or(t, pos, depth + 1)?;
            if t.get(*pos).map(String::as_str) != Some(")") {
                return Err("missing )".into());
            }
            *pos += 1;
            Ok(r)
        }
        "@" => Ok(Rule::Always),
        "!" => Ok(Rule::Never),
        check => match check.split_once(':') {
            Some(("role", r)) if !r.is_empty() => Ok(Rule::Role(r.into())),
            Some(("rule", r)) if !r.is_empty() => Ok(Rule::Ref(r.into())),
            Some((f, v)) if !f.is_empty() && !v.is_empty() => Ok(Rule::Field(f.into(), v.into())),
            _ => Err(format!("{check:?} is not a check like role:admin")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(roles: &[&str]) -> Creds {
        Creds {
            project_name: "demo".into(),
            domain_name: "demo".into(),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn kubernikus_roles_map_to_operations() {
        let p = Policy::kubernikus();
        let admin = creds(&["kubernetes_admin"]);
        let member = creds(&["kubernetes_member"]);
        let plain = creds(&["member"]);
        let nobody = creds(&["reader"]);
        for op in [
            "CreateCluster",
            "UpdateCluster",
            "TerminateCluster",
            "GetOpenstackMetadata",
            "GetBootstrapConfig",
        ] {
            assert!(p.allows(op, &admin), "{op}");
            assert!(!p.allows(op, &member), "{op}");
        }
        for op in [
            "ListClusters",
            "GetClusterCredentials",
            "GetClusterEvents",
            "GetClusterInfo",
        ] {
            assert!(p.allows(op, &admin) && p.allows(op, &member), "{op}");
            assert!(!p.allows(op, &plain), "{op}");
        }
        assert!(
            p.allows("ShowCluster", &plain),
            "ShowCluster also allows the plain member role"
        );
        assert!(!p.allows("ShowCluster", &nobody));
        assert!(!p.allows("NoSuchOperation", &admin), "no rule, no access");
    }

    #[test]
    fn cloud_admin_needs_domain_and_project() {
        let p = Policy::kubernikus();
        let mut c = creds(&[]);
        assert!(!p.allows("GetClusterValues", &c));
        c.project_name = "cloud_admin".into();
        c.domain_name = "ccadmin".into();
        assert!(p.allows("GetClusterValues", &c));
        c.domain_name = "Default".into();
        assert!(p.allows("GetClusterValues", &c));
        c.domain_name = "other".into();
        assert!(!p.allows("GetClusterValues", &c));
    }

    #[test]
    fn grammar_not_always_never_and_errors() {
        let p = Policy::from_json(
            r#"{"a":"not role:x","b":"@","c":"!","d":"","e":"(role:x or role:y) and not role:z"}"#,
        )
        .unwrap();
        assert!(p.allows("a", &creds(&["y"])) && !p.allows("a", &creds(&["x"])));
        assert!(
            p.allows("b", &creds(&[])) && !p.allows("c", &creds(&[])) && p.allows("d", &creds(&[]))
        );
        assert!(p.allows("e", &creds(&["y"])) && !p.allows("e", &creds(&["y", "z"])));
        assert!(matches!(
            Policy::from_json(r#"{"a":"role:x and"}"#),
            Err(PolicyError::Syntax { .. })
        ));
        assert!(matches!(
            Policy::from_json(r#"{"a":"(role:x"}"#),
            Err(PolicyError::Syntax { .. })
        ));
        assert!(matches!(
            Policy::from_json(r#"{"a":"rule:b"}"#),
            Err(PolicyError::UnknownRule { .. })
        ));
        let deep = format!(
            r#"{{"a":"{}role:x{}"}}"#,
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        assert!(
            matches!(Policy::from_json(&deep), Err(PolicyError::Syntax { message, .. }) if message.contains("nested more than")),
            "deep nesting is a syntax error, not a stack overflow"
        );
        let nots = format!(r#"{{"a":"{}role:x"}}"#, "not ".repeat(100_000));
        assert!(matches!(
            Policy::from_json(&nots),
            Err(PolicyError::Syntax { .. })
        ));
        let cyc = Policy::from_json(r#"{"a":"rule:b","b":"rule:a"}"#).unwrap();
        assert!(!cyc.allows("a", &creds(&[])));
    }
}
