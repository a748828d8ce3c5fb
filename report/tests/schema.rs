//! The report's JSON Schema and the provision kinds' schema, as published: a change to a
//! type's fields or docs that changes them shows here.

use clausewright_report::{Provision, ReviewReport};

#[test]
fn the_report_schema_is_unchanged() {
    insta::assert_json_snapshot!(schemars::schema_for!(ReviewReport));
}

#[test]
fn the_provision_schema_is_unchanged() {
    insta::assert_json_snapshot!(schemars::schema_for!(Provision));
}
