//! The kluster as YAML: written for the read-only view and the editor, read back from what
//! a person typed, and checked with the API's own rules (`kluster::validate`,
//! `kluster::update`) so that the preview refuses what the controller would, in its words.

use crate::error::AppError;

/// The whole kluster (metadata, spec, status) for the read-only view.
pub fn whole(k: &kluster::Kluster) -> String {
    serde_yaml::to_string(k).unwrap_or_default()
}

/// What the editor starts with: the kluster's name and spec, the parts a change may touch.
pub fn editable(k: &kluster::Kluster) -> String {
    #[derive(serde::Serialize)]
    struct Editable<'a> {
        name: &'a str,
        spec: &'a kluster::KlusterSpec,
    }
    serde_yaml::to_string(&Editable {
        name: &k.name,
        spec: &k.spec,
    })
    .unwrap_or_default()
}

/// Reads the typed YAML into a kluster; a document that does not parse, or names a field
/// the API does not have, is refused with the YAML reader's words (path, line, column).
pub fn read(text: &str) -> Result<kluster::Kluster, AppError> {
    if text.trim().is_empty() {
        return Err(AppError::BadInput(
            "The YAML is empty: write the kluster's name and spec.".into(),
        ));
    }
    serde_yaml::from_str(text)
        .map_err(|e| AppError::BadInput(format!("The YAML cannot be read: {e}.")))
}

/// What applying `typed` to `current` would change, field by field; the API's rules refuse
/// the rest (an immutable field, another name, a bad value), each error naming its field.
pub fn preview(
    current: &kluster::Kluster,
    typed: &kluster::Kluster,
) -> Result<Vec<kluster::SpecChange>, AppError> {
    let next = kluster::update::apply(current, typed, current.status.phase)
        .map_err(|e| AppError::Invalid(e.0))?;
    Ok(kluster::diff::spec_changes(
        Some(&current.spec),
        Some(&next.spec),
    ))
}

/// The create form's values as the YAML of a new kluster (name and spec), with whatever is
/// still wrong in them: the YAML editor checks nothing until the kluster is created.
pub fn of_form(form: &crate::model::KlusterForm) -> String {
    editable(&form.to_kluster_unchecked().0)
}

/// The create form holding the kluster of `text`, and the fields of the YAML that the form
/// has no place for (left out, named by path); refused in the reader's words like [`read`].
pub fn to_form(text: &str) -> Result<(crate::model::KlusterForm, Vec<String>), AppError> {
    let k = read(text)?;
    let form = crate::duplicate::exact_form(&k);
    let back = form.to_kluster_unchecked().0;
    let left_out = kluster::diff::spec_changes(Some(&k.spec), Some(&back.spec))
        .into_iter()
        .filter(|c| !c.before.is_empty() && c.before != "null")
        // The form's empty group choice is the API's `default`.
        .filter(|c| !(c.field.ends_with("securityGroupName") && c.before == "\"default\""))
        .map(|c| c.field)
        .collect();
    Ok((form, left_out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn current() -> kluster::Kluster {
        serde_json::from_str(
            r#"{"name":"web","spec":{"version":"1.31.8","serviceCIDR":"198.18.128.0/17",
               "nodePools":[{"name":"a","size":1,"flavor":"m1.small","availabilityZone":"az-a"}]},
               "status":{"phase":"Running"}}"#,
        )
        .unwrap()
    }

    #[test]
    fn the_editor_round_trips_and_a_change_is_listed() {
        let k = current();
        let text = editable(&k);
        assert!(
            text.contains("name: web") && !text.contains("status"),
            "{text}"
        );
        assert!(preview(&k, &read(&text).unwrap()).unwrap().is_empty());
        let bigger = text.replace("size: 1", "size: 3");
        let changes = preview(&k, &read(&bigger).unwrap()).unwrap();
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].field, "spec.nodePools[0].size");
        assert_eq!(
            (changes[0].before.as_str(), changes[0].after.as_str()),
            ("1", "3")
        );
        assert!(whole(&k).contains("phase: Running"));
    }

    #[test]
    fn bad_yaml_unknown_fields_and_immutable_ones_are_refused_in_words() {
        let k = current();
        let e = read("name: web\nspec: [").unwrap_err().to_string();
        assert!(e.starts_with("The YAML cannot be read:"), "{e}");
        let e = read(&editable(&k).replace("size: 1", "size: 1\n    sise: 2"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("spec.nodePools[0]") && e.contains("unknown field `sise`"),
            "{e}"
        );
        let cidr = editable(&k).replace("198.18.128.0/17", "10.9.0.0/16");
        let e = preview(&k, &read(&cidr).unwrap()).unwrap_err();
        assert!(e
            .for_field("spec.serviceCIDR")
            .is_some_and(|m| m.contains("cannot change")));
        let renamed = editable(&k).replace("name: web", "name: other");
        assert!(preview(&k, &read(&renamed).unwrap())
            .unwrap_err()
            .for_field("name")
            .is_some());
        assert!(read("  \n").unwrap_err().to_string().contains("empty"));
    }

    #[test]
    fn the_create_form_and_its_yaml_turn_into_each_other() {
        let mut k = current();
        k.spec.node_pools[0].labels = vec!["team=web".into()];
        k.spec.cluster_cidr = Some("100.100.0.0/16".into());
        let (form, left_out) = to_form(&editable(&k)).unwrap();
        assert!(left_out.is_empty(), "{left_out:?}");
        assert_eq!(
            (form.name.as_str(), form.pools[0].size.as_str()),
            ("web", "1")
        );
        assert_eq!(form.pools[0].labels, "team=web");
        assert_eq!(form.cluster_cidr, "100.100.0.0/16");
        let again = read(&of_form(&form)).unwrap();
        assert_eq!(again.spec.node_pools[0].labels, ["team=web"]);
        assert_eq!(again.spec.service_cidr, "198.18.128.0/17");
        // What the form cannot hold is named, not dropped in silence.
        k.spec.openstack.security_group_name = "default".into();
        k.spec.dns_domain = "example.org".into();
        let (_, left_out) = to_form(&editable(&k)).unwrap();
        assert_eq!(left_out, ["spec.dnsDomain"]);
        assert!(to_form("spec: [").is_err());
    }
}
