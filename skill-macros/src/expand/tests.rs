use super::*;

#[test]
fn type_names_come_from_the_fn_name() {
    assert_eq!(camel_case("search_reference_doc"), "SearchReferenceDoc");
    assert_eq!(camel_case("_private_skill"), "PrivateSkill");
    assert_eq!(camel_case("count2"), "Count2");
    assert_eq!(camel_case("__"), "");
}

#[test]
fn id_const_names_are_distinct_for_distinct_wire_names() {
    assert_eq!(id_const_name("find_client"), "skill_id_find_client");
    assert_eq!(id_const_name("crm.search"), "skill_id_crm_search");
    assert_eq!(
        id_const_name("files.list-all"),
        "skill_id_files_list_hyphen_all"
    );
    // `-` stays on the wire, so `a-b` and `a_b` are two tools and two names.
    assert_ne!(id_const_name("a-b"), id_const_name("a_b"));
    // `.` becomes `_` on the wire: ids that share a wire name share the name too.
    assert_eq!(id_const_name("crm.search"), id_const_name("crm_search"));
    for id in ["a", "crm.search_client", "x-y.z_1"] {
        assert!(syn::parse_str::<Ident>(&id_const_name(id)).is_ok(), "{id}");
    }
}
