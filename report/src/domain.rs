//! The domain of a review: which domain skills, checklist items and prompts applied, as the
//! report names it (`domain_id`).

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The domain of a review: which domain skills, checklist items and prompts apply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Domain {
    /// No domain: the generic skills only.
    #[default]
    Generic,
    /// FIDIC construction contracts.
    Fidic,
    /// Share purchase and shareholders' agreements.
    ShaSpa,
}

impl Domain {
    /// The named domains, as a host offers them.
    pub const NAMED: [Domain; 2] = [Domain::Fidic, Domain::ShaSpa];

    /// The domain id skills and reports use: `fidic`, `sha_spa`, or empty for none.
    pub const fn as_str(self) -> &'static str {
        match self {
            Domain::Generic => "",
            Domain::Fidic => "fidic",
            Domain::ShaSpa => "sha_spa",
        }
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A domain id that names no domain.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown domain `{0}`; expected `fidic` or `sha_spa`")]
pub struct UnknownDomain(pub String);

impl FromStr for Domain {
    type Err = UnknownDomain;

    /// `fidic`, `sha_spa`, or empty for [`Domain::Generic`].
    fn from_str(id: &str) -> Result<Self, Self::Err> {
        match id {
            "" => Ok(Domain::Generic),
            "fidic" => Ok(Domain::Fidic),
            "sha_spa" => Ok(Domain::ShaSpa),
            other => Err(UnknownDomain(other.to_string())),
        }
    }
}

impl Serialize for Domain {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Domain {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = String::deserialize(deserializer)?;
        id.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Domain {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Domain".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let ids = [Domain::Generic, Domain::Fidic, Domain::ShaSpa].map(Domain::as_str);
        schemars::json_schema!({
            "type": "string",
            "enum": ids,
            "description": "The domain id: `fidic`, `sha_spa`, or empty for none."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_domain_reads_back_from_its_id_and_a_stranger_is_refused() {
        for domain in [Domain::Generic, Domain::Fidic, Domain::ShaSpa] {
            assert_eq!(domain.as_str().parse::<Domain>(), Ok(domain));
            let json = serde_json::to_string(&domain).unwrap();
            assert_eq!(json, format!("\"{domain}\""));
            assert_eq!(serde_json::from_str::<Domain>(&json).unwrap(), domain);
        }
        assert_eq!(
            "civil".parse::<Domain>(),
            Err(UnknownDomain("civil".into()))
        );
        let err = serde_json::from_str::<Domain>("\"civil\"").unwrap_err();
        assert!(err.to_string().contains("unknown domain `civil`"), "{err}");
    }
}
