//! The tools a pack's model may call: core tools, the pack's own, and what it imports.

use chrono::NaiveDate;
use toolwright::{SkillRegistration, ToolFilter, ToolSet};

use super::route::is_removed;
use super::{Gateway, GatewayError};
use crate::manifest::PackManifest;

impl Gateway {
    /// The tools the model of `pack` may call, as OpenAI definitions sorted by id: core
    /// tools, the pack's own active tools, and the tools it imports that the provider exports
    /// and has not removed. An import that is not authorised never appears.
    ///
    /// The definitions come from the dispatcher's tool-set cache; the set is kept per pack
    /// and day, since removal dates change it at midnight. Other dialects:
    /// [`Gateway::pack_filter`] with `Dispatcher::tools_in`.
    pub fn tools_for_pack(&self, pack: &str) -> Result<ToolSet, GatewayError> {
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
            return Ok(hit.clone());
        }
        let filter = ToolFilter::all().ids(self.pack_tool_ids(manifest, today));
        let set = self.inner.dispatcher.tools(&filter);
        let mut cache = self
            .inner
            .tool_sets
            .write()
            .unwrap_or_else(|p| p.into_inner());
        Ok(cache.entry(key).or_insert(set).clone())
    }

    /// The filter that selects the tools `pack` may call today, for a tool set in any
    /// dialect: `dispatcher.tools_in(Dialect::Mcp, &gateway.pack_filter("jungastro")?)`.
    pub fn pack_filter(&self, pack: &str) -> Result<ToolFilter, GatewayError> {
        let manifest = self
            .pack(pack)
            .ok_or_else(|| GatewayError::UnknownPack(pack.into()))?;
        let today = self.now().date_naive();
        Ok(ToolFilter::all().ids(self.pack_tool_ids(manifest, today)))
    }

    /// The ids of the tools `pack` may call on `today`: core tools, the pack's own, then its
    /// authorised imports; active skills only, each once.
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
