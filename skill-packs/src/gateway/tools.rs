//! The tools a pack's model may call: core tools, the pack's own, and what it imports.

use std::sync::Arc;

use chrono::NaiveDate;
use skill_core::{SkillRegistration, ToolFilter};

use super::route::is_removed;
use super::{Gateway, GatewayError, PackTools};
use crate::manifest::PackManifest;

impl Gateway {
    /// The tools the model of `pack` may call (SPEC `get_tools_for_skill`): core tools, the
    /// pack's own active tools, then the tools it imports that the provider exports and has
    /// not removed. An import that is not authorised never appears.
    ///
    /// Cached per pack and day, since removal dates change the set at midnight.
    pub fn tools_for_pack(&self, pack: &str) -> Result<PackTools, GatewayError> {
        let manifest = self
            .pack(pack)
            .ok_or_else(|| GatewayError::UnknownPack(pack.into()))?;
        let today = self.now().date_naive();
        let key = (manifest.id, today);
        if let Some(hit) = self
            .inner
            .tool_sets
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(Arc::clone(hit));
        }
        let dispatcher = &self.inner.dispatcher;
        let chosen = self
            .pack_tool_ids(manifest, today)
            .into_iter()
            .filter_map(|id| dispatcher.registration(id));
        let set: PackTools = Arc::new(skill_core::skills_to_tool_definitions(
            chosen,
            &ToolFilter::all(),
        ));
        let mut cache = self
            .inner
            .tool_sets
            .write()
            .unwrap_or_else(|p| p.into_inner());
        Ok(Arc::clone(cache.entry(key).or_insert(set)))
    }

    /// The ids of the tools `pack` may call on `today`, in the order its model sees them:
    /// core tools, the pack's own, then its authorised imports; active skills only, each
    /// once.
    pub(crate) fn pack_tool_ids(
        &self,
        pack: &'static PackManifest,
        today: NaiveDate,
    ) -> Vec<&'static str> {
        let dispatcher = &self.inner.dispatcher;
        let mut chosen: Vec<&'static SkillRegistration> = Vec::new();
        let mut push = |reg: &'static SkillRegistration| {
            if reg.is_active() && !chosen.iter().any(|c| std::ptr::eq(*c, reg)) {
                chosen.push(reg);
            }
        };
        self.inner.core.iter().for_each(|r| push(r));
        dispatcher
            .list_skills()
            .iter()
            .filter(|s| pack.owns(s.id))
            .for_each(|r| push(r));
        for import in pack.imports {
            let Some(provider) = self.pack(import.from) else {
                continue;
            };
            for tool in import.tools {
                if !provider.exports.exports(tool) || is_removed(provider, tool, today) {
                    continue;
                }
                if let Some(reg) = dispatcher.registration(tool) {
                    push(reg);
                }
            }
        }
        chosen.into_iter().map(|reg| reg.id).collect()
    }
}
