//! The list model's tests: rows from listings, search, sort and paging, page state, links.

use super::*;

fn all(n: usize) -> Vec<kluster::Kluster> {
    (0..n)
        .map(|i| {
            let mut k = kluster::Kluster {
                name: format!("k{i:03}"),
                ..Default::default()
            };
            if i % 10 == 0 {
                k.status.phase = kluster::KlusterPhase::Running;
            }
            k
        })
        .collect()
}

fn params(q: &str, phase: &str, sort: &str) -> ListParams {
    ListParams {
        q: q.into(),
        phase: phase.into(),
        sort: sort.into(),
        page: 0,
    }
}

#[test]
fn a_listed_kluster_makes_the_same_row_as_the_whole_kluster() {
    let k: kluster::Kluster = serde_json::from_value(serde_json::json!({
        "name": "k1",
        "metadata": {"uid": "u", "creationTimestamp": "2026-12-01T10:20:30Z",
                     "createdBy": "alice@demo", "resourceVersion": "3"},
        "spec": {"version": "1.32.4", "nodePools": [
            {"name": "a", "size": 3, "flavor": "m1.small", "availabilityZone": "az-a"},
            {"name": "b", "size": 1, "flavor": "m1.large", "availabilityZone": "az-b"}
        ]},
        "status": {"phase": "Running", "version": "1.31.9", "nodePools": [
            {"name": "a", "size": 3, "running": 2, "healthy": 1, "schedulable": 1}
        ]}
    }))
    .unwrap();
    let whole = KlusterRow::from(k.clone());
    // Read off the whole kluster's JSON (a Kubernikus's answer) and off its summary's
    // (our controller's `fields=summary`): the same row.
    let wire = serde_json::to_string(&k).unwrap();
    let listed: KlusterSummary = serde_json::from_str(&wire).unwrap();
    assert_eq!(KlusterRow::from(listed.clone()), whole);
    let short = serde_json::to_string(&listed).unwrap();
    let listed: KlusterSummary = serde_json::from_str(&short).unwrap();
    assert_eq!(KlusterRow::from(listed), whole);
    assert_eq!(
        (
            whole.version.as_str(),
            whole.created.as_str(),
            whole.pools.len()
        ),
        ("1.31.9", "2026-12-01 10:20", 2)
    );
    assert_eq!(whole.pools[0].running, Some(2));
    assert_eq!(whole.pools[1].running, None);
}

#[test]
fn unknown_node_health_travels_to_the_row() {
    let info = |unknown: bool| kluster::NodePoolInfo {
        name: "a".into(),
        running: 2,
        health_unknown: unknown,
        ..Default::default()
    };
    for unknown in [true, false] {
        let mut k = kluster::Kluster::default();
        k.spec.node_pools = vec![kluster::NodePool {
            name: "a".into(),
            ..Default::default()
        }];
        k.status.node_pools = vec![info(unknown)];
        let wire = serde_json::to_value(info(unknown)).unwrap();
        // The extension is omitted when false: a Kubernikus's answer reads as known.
        assert_eq!(wire.get("healthUnknown").is_some(), unknown);
        assert_eq!(KlusterRow::from(k).pools[0].health_unknown, unknown);
    }
}

#[test]
fn a_whole_answer_is_searched_sorted_and_paged_here() {
    let q = params("", "", "-name").query().unwrap();
    let p = page_of_all(&q, all(120), 2);
    assert_eq!((p.total, p.page, p.pages), (120, 2, 3));
    let rows = p.into_rows();
    assert_eq!((rows.len(), rows[0].name.as_str()), (50, "k069"));
    // Past the last page: the last page.
    let p = page_of_all(&q, all(120), 9);
    assert_eq!(p.page, 3);
    let rows = p.into_rows();
    assert_eq!((rows.len(), rows[19].name.as_str()), (20, "k000"));
    let q = params("K1", "running", "").query().unwrap();
    let p = page_of_all(&q, all(120), 1);
    let total = p.total;
    let names: Vec<_> = p.into_rows().into_iter().map(|r| r.name).collect();
    assert_eq!((total, names), (2, vec!["k100".to_string(), "k110".into()]));
    assert!(params("", "Asleep", "").query().is_err());
}

#[cfg(feature = "ssr")]
#[test]
fn a_passed_page_is_written_as_answered_and_read_back_decoded() {
    let summaries: Vec<KlusterSummary> = all(3).into_iter().map(Into::into).collect();
    let answered = serde_json::to_string(&summaries).unwrap();
    // Passed on as answered, unread: spacing and a field no row uses stay.
    let extra = format!("[ {{\"name\": \"k\", \"later\": 1}} ,{}", &answered[1..]);
    let wire = serde_json::to_string(&rows_page(
        PageItems::Passed(serde_json::from_str(&extra).unwrap()),
        4,
        1,
    ))
    .unwrap();
    assert!(
        wire.starts_with(&format!(r#"{{"items":{extra},"#)),
        "{wire}"
    );
    let passed = rows_page(
        PageItems::Passed(serde_json::from_str(&answered).unwrap()),
        3,
        1,
    );
    let wire = serde_json::to_string(&passed).unwrap();
    assert!(
        wire.starts_with(&format!(r#"{{"items":{answered},"total":3"#)),
        "{wire}"
    );
    let read: KlusterPage = serde_json::from_str(&wire).unwrap();
    let decoded = rows_page(PageItems::Decoded(summaries), 3, 1);
    assert_eq!(read, decoded);
    assert_eq!(serde_json::to_string(&decoded).unwrap(), wire);
    assert_eq!(passed.into_rows(), decoded.into_rows());
}

#[test]
fn links_keep_the_query_and_encode_it() {
    let p = params("a b&c", "Running", "");
    assert_eq!(p.href(1), "/?q=a%20b%26c&phase=Running");
    assert_eq!(p.href(3), "/?q=a%20b%26c&phase=Running&page=3");
    assert_eq!(params("", "", "").href(1), "/");
    assert_eq!(p.sorted_by("name").sort, "-name");
    assert_eq!(p.sorted_by("name").sorted_by("name").sort, "");
    assert_eq!(p.sorted_by("nodes").sort, "nodes");
    let desc = ListParams {
        page: 4,
        ..p.sorted_by("nodes").sorted_by("nodes")
    };
    assert_eq!(
        (desc.sort.as_str(), desc.sorted_by("nodes").page),
        ("-nodes", 1)
    );
}
