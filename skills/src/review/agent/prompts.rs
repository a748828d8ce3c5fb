//! Domain instructions of the ReAct review prompt (SPEC-20 section 4), registered next to
//! the domain skills they name so `build_react_agent_messages` finds them by `domain_id`.
//! The tool names in the texts are exactly the skill ids.

crate::domain_prompt! {
    domain_id: crate::state::Domain::Fidic.as_str(),
    instructions_en: "[FIDIC review] The contract uses FIDIC conditions. Check (1) how the Particular Conditions amend the General Conditions (use fidic_merge_gc_pc); (2) notice and claim time bars (use fidic_calculate_time_bar); (3) consistency with the Employer's Requirements (use fidic_search_er).",
    instructions_zh: "【FIDIC 专项审查】本合同采用 FIDIC 条件。请关注：1. 专用条件(PC)对通用条件(GC)的修改（请使用 fidic_merge_gc_pc 工具获取）；2. 通知与索赔时效（请使用 fidic_calculate_time_bar 工具获取）；3. 与雇主要求(ER)的一致性（请使用 fidic_search_er 工具获取）。",
}

crate::domain_prompt! {
    domain_id: crate::state::Domain::ShaSpa.as_str(),
    instructions_en: "[SHA/SPA review] Check (1) conditions precedent to closing (use spa_extract_conditions); (2) representations and warranties (use spa_extract_reps_warranties); (3) indemnities, caps, baskets and survival periods (use spa_indemnity_analysis).",
    instructions_zh: "【SHA/SPA 专项审查】请关注：1. 交割先决条件（请使用 spa_extract_conditions 工具获取）；2. 陈述与保证（请使用 spa_extract_reps_warranties 工具获取）；3. 赔偿条款、责任上限、起赔额与存续期（请使用 spa_indemnity_analysis 工具获取）。",
}
