//! The pack contract checks (`check_manifests`) over arbitrary pack declarations: ids,
//! versions, exported tools, access rules, rate limits, deprecations and imports.
//!
//! Manifests are `'static` (`pack!` builds them at compile time), so each run places its
//! packs in an arena that is freed after the check: the problems it returns own their text.
//! Beyond "no panic", each run checks: every problem names one of the packs checked; the
//! check is deterministic; without duplicate ids the order of the packs does not matter.

#![no_main]

use std::collections::BTreeSet;

use chrono::NaiveDate;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use toolwright::SkillRegistration;
use toolwright_packs::{
    check_manifests, Access, Deprecation, ExportedTool, ImportDecl, PackExports, PackManifest,
    RateLimit, ToolRateLimit,
};

toolwright::link_skills!(clausewright_skills);

/// Registration number `N` of the linked skills (a distinct `fn` per `N`).
fn registration<const N: usize>() -> &'static SkillRegistration {
    let skills: Vec<_> = toolwright::linked_skills().collect();
    skills[N % skills.len()]
}

const REGISTRATIONS: [fn() -> &'static SkillRegistration; 6] = [
    registration::<0>,
    registration::<1>,
    registration::<2>,
    registration::<3>,
    registration::<4>,
    registration::<5>,
];

/// Owned memory handed out as `'static` for the length of one check.
#[derive(Default)]
struct Arena {
    frees: Vec<Box<dyn FnOnce()>>,
}

impl Arena {
    fn keep<T: ?Sized + 'static>(&mut self, value: Box<T>) -> &'static T {
        let raw = Box::into_raw(value);
        // SAFETY: freed only when the arena drops, after `check_manifests` returned; its
        // result holds owned strings only, so no reference outlives the arena.
        self.frees
            .push(Box::new(move || drop(unsafe { Box::from_raw(raw) })));
        unsafe { &*raw }
    }

    fn str(&mut self, text: String) -> &'static str {
        self.keep(text.into_boxed_str())
    }

    fn slice<T: 'static>(&mut self, items: Vec<T>) -> &'static [T] {
        self.keep(items.into_boxed_slice())
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for free in self.frees.drain(..).rev() {
            free();
        }
    }
}

#[derive(Debug, Arbitrary)]
struct ToolIn {
    id: String,
    registration: u8,
}

#[derive(Debug, Arbitrary)]
struct DeprecationIn {
    tool: String,
    since: String,
    removal_date: String,
    replacement: Option<String>,
}

#[derive(Debug, Arbitrary)]
struct ImportIn {
    from: String,
    tools: Vec<String>,
    min_version: String,
}

#[derive(Debug, Arbitrary)]
struct PackIn {
    id: String,
    version: String,
    api_version: String,
    tools: Vec<ToolIn>,
    requires_subscription: bool,
    free_tools: Vec<String>,
    rate_limits: Vec<(String, String)>,
    /// The pack-wide limit's text (`"100/day"`); unreadable text means no limit.
    rate_limit: String,
    deprecated: Vec<DeprecationIn>,
    imports: Vec<ImportIn>,
    /// Declared twice (the same manifest listed again).
    repeated: bool,
}

#[derive(Debug, Arbitrary)]
struct Input {
    packs: Vec<PackIn>,
    /// Days after 2026-01-01 the check runs on.
    day: u16,
}

fn build(arena: &mut Arena, pack: PackIn) -> &'static PackManifest {
    let tools: Vec<ExportedTool> = pack
        .tools
        .into_iter()
        .map(|t| ExportedTool {
            id: arena.str(t.id),
            registration: REGISTRATIONS[usize::from(t.registration) % REGISTRATIONS.len()],
        })
        .collect();
    let free_tools: Vec<&'static str> = pack.free_tools.into_iter().map(|t| arena.str(t)).collect();
    let rate_limits: Vec<ToolRateLimit> = pack
        .rate_limits
        .into_iter()
        .map(|(tool, text)| {
            let limit = RateLimit::parse(&text).unwrap_or(RateLimit::Unlimited);
            ToolRateLimit {
                tool: arena.str(tool),
                text: arena.str(text),
                limit,
            }
        })
        .collect();
    let deprecated: Vec<Deprecation> = pack
        .deprecated
        .into_iter()
        .map(|d| Deprecation {
            tool: arena.str(d.tool),
            since: arena.str(d.since),
            removal_date: arena.str(d.removal_date),
            replacement: d.replacement.map(|r| arena.str(r)),
        })
        .collect();
    let imports: Vec<ImportDecl> = pack
        .imports
        .into_iter()
        .map(|i| {
            let tools: Vec<&'static str> = i.tools.into_iter().map(|t| arena.str(t)).collect();
            ImportDecl {
                from: arena.str(i.from),
                tools: arena.slice(tools),
                min_version: arena.str(i.min_version),
            }
        })
        .collect();
    let id = arena.str(pack.id);
    let manifest = PackManifest {
        id,
        name: id,
        version: arena.str(pack.version),
        exports: PackExports {
            api_version: arena.str(pack.api_version),
            tools: arena.slice(tools),
            access: Access {
                requires_subscription: pack.requires_subscription,
                free_tools: arena.slice(free_tools),
                rate_limits: arena.slice(rate_limits),
                rate_limit: RateLimit::parse(&pack.rate_limit).unwrap_or(RateLimit::Unlimited),
            },
            deprecated: arena.slice(deprecated),
        },
        imports: arena.slice(imports),
        type_name: arena.str(format!("Pack_{id}")),
    };
    arena.keep(Box::new(manifest))
}

fuzz_target!(|input: Input| {
    let mut arena = Arena::default();
    let mut packs: Vec<&'static PackManifest> = Vec::new();
    for pack in input.packs {
        let repeated = pack.repeated;
        let manifest = build(&mut arena, pack);
        packs.push(manifest);
        if repeated {
            packs.push(manifest);
        }
    }
    let today = NaiveDate::from_ymd_opt(2026, 1, 1).expect("a date")
        + chrono::Days::new(u64::from(input.day));
    let problems = check_manifests(&packs, today);
    let ids: BTreeSet<&str> = packs.iter().map(|p| p.id).collect();
    for problem in &problems {
        assert!(
            ids.contains(problem.pack()),
            "problem names pack `{}`, which was not checked: {problem}",
            problem.pack()
        );
        assert!(!problem.to_string().is_empty());
    }
    assert_eq!(check_manifests(&packs, today), problems, "deterministic");
    let distinct: BTreeSet<*const PackManifest> = packs.iter().map(|p| *p as *const _).collect();
    if distinct.len() == ids.len() {
        let mut reversed = packs.clone();
        reversed.reverse();
        let render = |list: &[toolwright_packs::PackProblem]| -> BTreeSet<String> {
            list.iter().map(ToString::to_string).collect()
        };
        assert_eq!(
            render(&check_manifests(&reversed, today)),
            render(&problems),
            "the order of the packs changes the problems found"
        );
    }
    drop(problems);
    drop(packs);
    drop(arena);
});
