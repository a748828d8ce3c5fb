//! How serious a risk or finding is: one scale for every skill, rule and report.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How serious a risk or finding is for the party the review acts for.
///
/// Ordered by seriousness (`High > Medium > Low`), so "most serious first" is a descending
/// sort. Written as `high` / `medium` / `low` in JSON and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RiskLevel {
    /// Loss of a right, unlimited exposure, or a provision that contradicts another.
    High,
    /// A departure from the usual position that needs negotiation.
    Medium,
    /// Worth noting.
    Low,
}

// Declared most serious first (as schemas and reports list them); ordered by seriousness.
impl Ord for RiskLevel {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.seriousness().cmp(&other.seriousness())
    }
}

impl PartialOrd for RiskLevel {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A level word that [`RiskLevel::parse_lenient`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown risk level `{0}` (expected high, medium or low)")]
pub struct UnknownRiskLevel(pub String);

impl RiskLevel {
    /// The level as written in JSON and reports: `high`, `medium` or `low`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::High => "high",
            Self::Medium => "medium",
            Self::Low => "low",
        }
    }

    /// One level less serious (`low` stays `low`).
    pub fn milder(self) -> Self {
        match self {
            Self::High => Self::Medium,
            Self::Medium | Self::Low => Self::Low,
        }
    }

    /// One level more serious (`high` stays `high`).
    pub fn graver(self) -> Self {
        match self {
            Self::Low => Self::Medium,
            Self::Medium | Self::High => Self::High,
        }
    }

    fn seriousness(self) -> u8 {
        match self {
            Self::High => 2,
            Self::Medium => 1,
            Self::Low => 0,
        }
    }

    /// Reads a level as people and skills write it: `high` / `medium` / `low` in any case
    /// and with surrounding space, the Chinese 高 / 中 / 低 (with or without 风险), and the
    /// synonyms `critical` (high) and `moderate` (medium). `None` for anything else
    /// (`none`, empty text), which callers treat as "not a risk" or a default of their own.
    pub fn parse_lenient(text: &str) -> Option<Self> {
        let lower = text.trim().to_lowercase();
        Self::exact(&lower).or(match lower.as_str() {
            "critical" => Some(Self::High),
            "moderate" => Some(Self::Medium),
            _ => None,
        })
    }

    /// Reads the level a model wrote in its final answer the way the clause-analysis node
    /// does: the three level words (any case, English or Chinese), everything else —
    /// synonyms such as `critical` included — is `Medium`, so a model cannot raise a risk
    /// by inventing a word.
    pub fn from_model_answer(text: &str) -> Self {
        Self::exact(&text.trim().to_lowercase()).unwrap_or(Self::Medium)
    }

    /// The three level words, already trimmed and lower-cased.
    fn exact(lower: &str) -> Option<Self> {
        match lower {
            "high" | "高" | "高风险" => Some(Self::High),
            "medium" | "中" | "中风险" => Some(Self::Medium),
            "low" | "低" | "低风险" => Some(Self::Low),
            _ => None,
        }
    }
}

impl fmt::Display for RiskLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RiskLevel {
    type Err = UnknownRiskLevel;

    /// [`RiskLevel::parse_lenient`], with an error naming the unknown word.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse_lenient(text).ok_or_else(|| UnknownRiskLevel(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_parse_accepts_synonyms_and_chinese() {
        for (text, level) in [
            ("high", RiskLevel::High),
            (" HIGH ", RiskLevel::High),
            ("Critical", RiskLevel::High),
            ("高", RiskLevel::High),
            ("高风险", RiskLevel::High),
            ("medium", RiskLevel::Medium),
            ("moderate", RiskLevel::Medium),
            ("中", RiskLevel::Medium),
            ("Low", RiskLevel::Low),
            ("低风险", RiskLevel::Low),
        ] {
            assert_eq!(RiskLevel::parse_lenient(text), Some(level), "{text:?}");
            assert_eq!(text.parse::<RiskLevel>(), Ok(level), "{text:?}");
        }
        for text in ["", "none", "severe"] {
            assert_eq!(RiskLevel::parse_lenient(text), None, "{text:?}");
            assert_eq!(
                text.parse::<RiskLevel>(),
                Err(UnknownRiskLevel(text.to_string()))
            );
        }
    }

    #[test]
    fn model_answers_default_to_medium() {
        assert_eq!(RiskLevel::from_model_answer(" HIGH "), RiskLevel::High);
        assert_eq!(RiskLevel::from_model_answer("低"), RiskLevel::Low);
        assert_eq!(RiskLevel::from_model_answer("critical"), RiskLevel::Medium);
        assert_eq!(RiskLevel::from_model_answer(""), RiskLevel::Medium);
    }

    #[test]
    fn order_display_and_json_agree() {
        assert!(RiskLevel::High > RiskLevel::Medium && RiskLevel::Medium > RiskLevel::Low);
        let mut levels = vec![RiskLevel::Low, RiskLevel::High, RiskLevel::Medium];
        levels.sort_by(|a, b| b.cmp(a));
        assert_eq!(levels, [RiskLevel::High, RiskLevel::Medium, RiskLevel::Low]);
        for level in levels {
            assert_eq!(
                serde_json::to_string(&level).unwrap(),
                format!("\"{level}\"")
            );
            assert_eq!(
                serde_json::from_str::<RiskLevel>(&format!("\"{level}\"")).unwrap(),
                level
            );
        }
    }
}
