//! What the compiler rejects in `pack!` declarations and typed calls, with the message it
//! gives (see the `.stderr` files under `tests/ui/`).

#[test]
fn pack_contract_violations_do_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
