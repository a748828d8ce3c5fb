use super::*;

#[test]
fn a_first_version_file_reads_with_its_decision_threshold_for_serious_findings() {
    let v2 = tiny().to_bytes();
    assert_eq!(
        ProvisionModel::from_bytes(&v2)
            .unwrap()
            .serious_threshold(Kind::GoverningLaw),
        Some(0.7)
    );
    // The same model as version 1 wrote it: the old header, nothing after the threshold.
    let name = b"Governing Law";
    let threshold_end = v2.windows(name.len()).position(|w| w == name).unwrap() + name.len() + 4;
    let mut v1 = b"SKPROV01".to_vec();
    v1.extend_from_slice(&v2[8..threshold_end]);
    v1.extend_from_slice(&v2[threshold_end + 4..]);
    let read = ProvisionModel::from_bytes(&v1).unwrap();
    assert_eq!(read.serious_threshold(Kind::GoverningLaw), Some(0.5));
    assert_eq!(read.serious_threshold(Kind::Insurance), None);
    assert!(matches!(
        ProvisionModel::from_bytes(b"SKPROV03\0\0\0\0"),
        Err(ModelError::Magic)
    ));
}

fn tiny() -> ProvisionModel {
    let terms = vec![
        "governed".to_string(),
        "h:law".to_string(),
        "laws of".to_string(),
    ];
    let category = CategoryModel {
        name: "Governing Law".into(),
        linear: Linear {
            weights: vec![(0, 2.0), (2, 3.0)],
            bias: -2.0,
        },
        platt: Platt { a: -1.5, b: 0.2 },
        threshold: 0.5,
        serious: 0.7,
    };
    ProvisionModel::from_parts(3, terms, vec![1.0, 1.5, 2.0], vec![category]).unwrap()
}

#[test]
fn a_category_outside_the_catalogue_is_refused_by_name() {
    let bytes = tiny().to_bytes();
    let at = bytes
        .windows(13)
        .position(|w| w == b"Governing Law")
        .unwrap();
    let mut other = bytes.clone();
    other[at..at + 13].copy_from_slice(b"Office Plants");
    let err = ProvisionModel::from_bytes(&other).unwrap_err();
    assert!(
        err.to_string()
            .contains("`Office Plants`, which is no kind"),
        "{err}"
    );
}

#[test]
fn bytes_round_trip_exactly() {
    let model = tiny();
    let bytes = model.to_bytes();
    let back = ProvisionModel::from_bytes(&bytes).unwrap();
    assert_eq!(back, model);
    assert_eq!(back.to_bytes(), bytes);
    let p = back.sentence_probabilities(
        "Law",
        None,
        "This Agreement is governed by the laws of Ohio.",
    );
    let q = back.sentence_probabilities("", None, "The price is payable monthly.");
    assert!(p[0] > 0.5 && q[0] < 0.5, "{p:?} {q:?}");
}

#[test]
fn damaged_files_are_refused_with_a_reason() {
    let bytes = tiny().to_bytes();
    assert!(matches!(
        ProvisionModel::from_bytes(b"PK\x03\x04 not a model"),
        Err(ModelError::Magic)
    ));
    let cut = ProvisionModel::from_bytes(&bytes[..10]).unwrap_err();
    assert!(cut.to_string().contains("cut short"), "{cut}");
    let mut extra = bytes.clone();
    extra.push(0);
    let err = ProvisionModel::from_bytes(&extra).unwrap_err();
    assert!(err.to_string().contains("after the last category"), "{err}");
    let mut huge = bytes;
    huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = ProvisionModel::from_bytes(&huge).unwrap_err();
    assert!(
        err.to_string().contains("more than the file holds"),
        "{err}"
    );
}

#[test]
fn the_embedded_model_loads_and_reads_clauses_we_wrote() {
    let model = ProvisionModel::embedded().expect("the embedded model loads");
    assert_eq!(model.kinds().count(), 41);
    let contract = "DISTRIBUTION AGREEMENT\n\n\
            1. Price\n\nThe Distributor shall pay the list price for each unit ordered, in euros, within forty-five days of the date of the invoice.\n\n\
            2. Law and Courts\n\nThis agreement and any dispute arising from it are governed by the laws of England and Wales, and the courts of London have exclusive jurisdiction.\n\n\
            3. Transfer\n\nThe Distributor may not assign or otherwise transfer any of its rights or duties under this agreement to anyone without first obtaining the written consent of the Manufacturer.\n";
    let doc = crate::document::parse_text("ours", contract);
    let found = model.classify(&doc);
    let categories = |id: &str| -> Vec<Kind> {
        found
            .iter()
            .find(|c| c.clause_id == id)
            .map(|c| c.provisions.iter().map(|p| p.kind).collect())
            .unwrap_or_default()
    };
    assert!(categories("2").contains(&Kind::GoverningLaw), "{found:#?}");
    assert!(
        categories("3").contains(&Kind::AssignmentRestriction),
        "{found:#?}"
    );
    assert!(!categories("1").contains(&Kind::GoverningLaw), "{found:#?}");
    let law = found.iter().find(|c| c.clause_id == "2").unwrap();
    let p = law
        .provisions
        .iter()
        .find(|p| p.kind == Kind::GoverningLaw)
        .unwrap();
    assert!(p.sentence.contains("laws of England"), "{p:?}");
    // Of all categories, the sentence is most likely governing law.
    let probs = model.sentence_probabilities("Law and Courts", None, &p.sentence);
    let best = (0..probs.len())
        .max_by(|a, b| probs[*a].total_cmp(&probs[*b]))
        .unwrap();
    assert_eq!(
        model.kinds().nth(best),
        Some(Kind::GoverningLaw),
        "{probs:?}"
    );
}
