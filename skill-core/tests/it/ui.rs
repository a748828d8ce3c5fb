//! Compile-time diagnostics of `#[skill]`: one UI test per diagnostic, with the expected
//! compiler output committed next to it (`TRYBUILD=overwrite` regenerates it).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
