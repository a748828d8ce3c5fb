//! The `pack!` macro: declares a pack, its exports and its imports, checked by the compiler.

/// Declares a pack: a marker type implementing [`Pack`](crate::Pack) with a `'static`
/// [`PackManifest`](crate::PackManifest), registered at link time for
/// [`check_packs`](crate::check_packs) and the [`Gateway`](crate::Gateway).
///
/// Tools are named by the markers `#[skill]` generates, so the compiler checks that
/// - every exported tool is a skill,
/// - free tools, rate-limited and deprecated tools are exported,
/// - every imported tool is exported by its provider (`T: Exports<Provider>`),
/// - a typed call `gateway.call::<Consumer, T>` names an imported tool (`Consumer: Imports<T>`),
/// - every rate limit reads as `<count>/<unit>` or `unlimited`.
///
/// ```
/// use toolwright::prelude::*;
///
/// /// Calculate a chart.
/// #[skill(id = "zodiac.calculate_zodiac", domain = "zodiac")]
/// fn calculate_zodiac(
///     /// Birth date, YYYY-MM-DD.
///     birth_date: String,
/// ) -> String {
///     birth_date
/// }
///
/// /// Read the latest chart.
/// #[skill(id = "zodiac.get_chart_snapshot", domain = "zodiac")]
/// fn get_chart_snapshot() -> String {
///     String::new()
/// }
///
/// /// The old way to calculate a chart.
/// #[skill(id = "zodiac.old_chart", domain = "zodiac")]
/// fn old_chart() -> String {
///     String::new()
/// }
///
/// toolwright_packs::pack! {
///     /// Western astrology.
///     pub struct Zodiac {
///         id: "zodiac",
///         name: "Western astrology",
///         version: "3.0.0",
///         exports: {
///             api_version: "1.0.0",
///             tools: [CalculateZodiac, GetChartSnapshot, OldChart],
///             access: {
///                 requires_subscription: true,
///                 rate_limit: "100/day",
///                 free_tools: [GetChartSnapshot],
///                 rate_limits: { CalculateZodiac: "50/day", GetChartSnapshot: "unlimited" },
///             },
///             deprecated: [
///                 { tool: OldChart, since: "2026-01-01", removal_date: "2026-06-01", replacement: CalculateZodiac },
///             ],
///         },
///     }
/// }
///
/// toolwright_packs::pack! {
///     /// Reads charts through zodiac's exports.
///     pub struct Jungastro {
///         id: "jungastro",
///         name: "Jungian astrology",
///         version: "1.0.0",
///         imports: [
///             { from: Zodiac, tools: [CalculateZodiac], min_version: "1.0" },
///         ],
///     }
/// }
///
/// use toolwright_packs::Pack;
/// assert_eq!(Jungastro::manifest().imports[0].tools, ["zodiac.calculate_zodiac"]);
/// let today = chrono::NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
/// let problems = toolwright_packs::check_manifests(&[Zodiac::manifest(), Jungastro::manifest()], today);
/// assert!(problems.is_empty(), "{problems:?}");
/// ```
///
/// `exports` and `imports` may be left out; `access` defaults to open access and
/// `deprecated` to none.
#[macro_export]
macro_rules! pack {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            id: $id:literal,
            name: $display:literal,
            version: $version:literal
            $(, exports: { $($exports:tt)* })?
            $(, imports: [ $($imports:tt)* ])?
            $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        $vis struct $name;

        impl $crate::Pack for $name {
            const ID: &'static str = $id;
            fn manifest() -> &'static $crate::PackManifest {
                static MANIFEST: $crate::PackManifest = $crate::PackManifest {
                    id: $id,
                    name: $display,
                    version: $version,
                    exports: $crate::pack!(@exports_value $($($exports)*)?),
                    imports: $crate::pack!(@imports_value $($($imports)*)?),
                    type_name: ::core::concat!(::core::module_path!(), "::", ::core::stringify!($name)),
                };
                &MANIFEST
            }
        }

        $crate::__private::inventory::submit! {
            $crate::__private::RegisteredPack(<$name as $crate::Pack>::manifest)
        }

        $crate::pack!(@exports_items $name; $($($exports)*)?);
        $crate::pack!(@imports_items $name; $($($imports)*)?);
    };

    // ---- exports: the manifest value ----
    (@exports_value) => { $crate::PackExports::NONE };
    (@exports_value
        api_version: $api:literal,
        tools: [ $($tool:ty),* $(,)? ]
        $(, access: { $($access:tt)* })?
        $(, deprecated: [ $($deprecated:tt)* ])?
        $(,)?
    ) => {
        $crate::PackExports {
            api_version: $api,
            tools: &[ $( $crate::ExportedTool::of::<$tool>() ),* ],
            access: $crate::pack!(@access_value $($($access)*)?),
            deprecated: $crate::pack!(@deprecated_value $($($deprecated)*)?),
        }
    };

    (@access_value) => { $crate::Access::OPEN };
    (@access_value
        requires_subscription: $requires:literal
        $(, rate_limit: $pack_limit:literal)?
        $(, free_tools: [ $($free:ty),* $(,)? ])?
        $(, rate_limits: { $($limited:ty : $limit:literal),* $(,)? })?
        $(,)?
    ) => {
        $crate::Access {
            requires_subscription: $requires,
            free_tools: &[ $($( <$free as $crate::__private::Skill>::ID ),*)? ],
            rate_limits: &[ $($(
                $crate::ToolRateLimit {
                    tool: <$limited as $crate::__private::Skill>::ID,
                    text: $limit,
                    limit: $crate::RateLimit::parse_or_panic($limit),
                }
            ),*)? ],
            rate_limit: $crate::pack!(@pack_limit $($pack_limit)?),
        }
    };

    (@pack_limit) => { $crate::RateLimit::Unlimited };
    (@pack_limit $limit:literal) => {{
        const LIMIT: $crate::RateLimit = $crate::RateLimit::parse_or_panic($limit);
        LIMIT
    }};

    (@deprecated_value) => { &[] };
    (@deprecated_value
        $({
            tool: $old:ty,
            since: $since:literal,
            removal_date: $removal:literal
            $(, replacement: $replacement:ty)?
            $(,)?
        }),* $(,)?
    ) => {
        &[ $(
            $crate::Deprecation {
                tool: <$old as $crate::__private::Skill>::ID,
                since: $since,
                removal_date: $removal,
                replacement: $crate::pack!(@replacement $($replacement)?),
            }
        ),* ]
    };
    (@replacement) => { ::core::option::Option::None };
    (@replacement $replacement:ty) => {
        ::core::option::Option::Some(<$replacement as $crate::__private::Skill>::ID)
    };

    // ---- exports: marker impls and compile-time checks ----
    (@exports_items $name:ident;) => {};
    (@exports_items $name:ident;
        api_version: $api:literal,
        tools: [ $($tool:ty),* $(,)? ]
        $(, access: { $($access:tt)* })?
        $(, deprecated: [ $($deprecated:tt)* ])?
        $(,)?
    ) => {
        $( impl $crate::Exports<$name> for $tool {} )*
        const _: () = {
            fn exported_tools_are_skills() {
                $( let _ = <$tool as $crate::__private::IsPackTool>::OK; )*
            }
        };
        $crate::pack!(@access_items $name; $($($access)*)?);
        $crate::pack!(@deprecated_items $name; $($($deprecated)*)?);
    };

    (@access_items $name:ident;) => {};
    (@access_items $name:ident;
        requires_subscription: $requires:literal
        $(, rate_limit: $pack_limit:literal)?
        $(, free_tools: [ $($free:ty),* $(,)? ])?
        $(, rate_limits: { $($limited:ty : $limit:literal),* $(,)? })?
        $(,)?
    ) => {
        const _: () = {
            fn free_and_limited_tools_are_exported() {
                $($( let _ = <$free as $crate::__private::ExportedBy<$name>>::OK; )*)?
                $($( let _ = <$limited as $crate::__private::ExportedBy<$name>>::OK; )*)?
            }
        };
    };

    (@deprecated_items $name:ident;) => {};
    (@deprecated_items $name:ident;
        $({
            tool: $old:ty,
            since: $since:literal,
            removal_date: $removal:literal
            $(, replacement: $replacement:ty)?
            $(,)?
        }),* $(,)?
    ) => {
        const _: () = {
            fn deprecated_tools_and_replacements_are_exported() {
                $(
                    let _ = <$old as $crate::__private::ExportedBy<$name>>::OK;
                    $( let _ = <$replacement as $crate::__private::ExportedBy<$name>>::OK; )?
                )*
            }
        };
    };

    // ---- imports ----
    (@imports_value) => { &[] };
    (@imports_value
        $({
            from: $from:ty,
            tools: [ $($tool:ty),* $(,)? ],
            min_version: $min:literal
            $(,)?
        }),* $(,)?
    ) => {
        &[ $(
            $crate::ImportDecl {
                from: <$from as $crate::Pack>::ID,
                tools: &[ $( <$tool as $crate::__private::Skill>::ID ),* ],
                min_version: $min,
            }
        ),* ]
    };

    (@imports_items $name:ident;) => {};
    (@imports_items $name:ident;
        $({
            from: $from:ty,
            tools: [ $($tool:ty),* $(,)? ],
            min_version: $min:literal
            $(,)?
        }),* $(,)?
    ) => {
        $($(
            impl $crate::Imports<$tool> for $name {
                type Provider = $from;
            }
        )*)*
        const _: () = {
            fn imported_tools_are_exported_by_their_provider() {
                $($( let _ = <$tool as $crate::__private::ImportableFrom<$from>>::OK; )*)*
            }
        };
    };
}
