//! The `jungastro` consumer pack: Jungian readings of a chart it obtains from `zodiac`
//! only through zodiac's exported tools, caching results in its own namespace.

use chrono::NaiveDate;
use serde_json::json;
use toolwright::prelude::*;
use toolwright::Inject;
use toolwright_packs::PackSession;

use crate::zodiac::{
    CalculateZodiac, CalculateZodiacInput, ChartSnapshot, GetChartSnapshot, GetChartSnapshotInput,
    Zodiac, ZodiacReading,
};

/// Where jungastro caches the chart (its own namespace).
pub const CACHED_CHART_PATH: &str = "skills.jungastro.zodiac_chart";

/// Who the user is, as the host knows it (SPEC `context.profile.identity.birth_info`).
#[derive(Debug, Clone)]
pub struct BirthProfile {
    /// Birth date.
    pub date: NaiveDate,
    /// Local birth time `HH:MM`.
    pub time: Option<String>,
    /// Birth place.
    pub place: Option<String>,
    /// Offset of local time from UTC, minutes.
    pub utc_offset_minutes: i32,
}

fn profile(ctx: &SkillContext) -> Result<&BirthProfile, SkillError> {
    ctx.get::<BirthProfile>().ok_or_else(|| {
        SkillError::not_found("the user's birth data is not in the profile; ask for the birth date")
    })
}

fn birth_date_from_profile(ctx: &SkillContext) -> Result<NaiveDate, SkillError> {
    profile(ctx).map(|p| p.date)
}

/// Get the user's natal chart for a Jungian reading: from jungastro's cache, else computed
/// by zodiac (which needs a subscription).
#[skill(
    id = "jungastro.get_zodiac_chart",
    domain = "jungastro",
    category = "query"
)]
pub async fn get_zodiac_chart(
    /// Birth date `YYYY-MM-DD`; taken from the user's profile when left out.
    #[arg(prepare = birth_date_from_profile)]
    birth_date: NaiveDate,
    /// Recompute even if a cached chart exists.
    #[arg(default)]
    refresh: bool,
    session: Inject<PackSession>,
    ctx: &SkillContext,
) -> Result<ZodiacReading, SkillError> {
    if !refresh {
        if let Some(cached) = session.read(CACHED_CHART_PATH).await? {
            if let Ok(reading) = serde_json::from_value::<ZodiacReading>(cached) {
                return Ok(reading);
            }
        }
    }
    let known = ctx.get::<BirthProfile>();
    let input = CalculateZodiacInput {
        birth_date,
        birth_time: known
            .and_then(|p| p.time.clone())
            .unwrap_or_else(|| "12:00".into()),
        birth_place: known.and_then(|p| p.place.clone()),
        utc_offset_minutes: known.map_or(0, |p| p.utc_offset_minutes),
        latitude: None,
        longitude: None,
    };
    // A subscription_required error is passed on as it is: the host shows the card.
    let reading = session.call::<Jungastro, CalculateZodiac>(&input).await?;
    session
        .save(CACHED_CHART_PATH, &serde_json::to_value(&reading)?)
        .await?;
    Ok(reading)
}

/// A Jungian reading of sun and moon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JungianReading {
    /// The conscious attitude (Sun).
    pub ego_archetype: String,
    /// The inner, feeling side (Moon).
    pub anima_archetype: String,
    /// The function the sun's element favours.
    pub dominant_function: String,
    /// The opposite function, in the shadow.
    pub inferior_function: String,
    /// One-paragraph summary.
    pub summary: String,
}

fn archetype(sign: &str) -> Result<&'static str, SkillError> {
    Ok(match sign {
        "Aries" => "the Hero",
        "Taurus" => "the Lover",
        "Gemini" => "the Trickster",
        "Cancer" => "the Great Mother",
        "Leo" => "the Ruler",
        "Virgo" => "the Healer",
        "Libra" => "the Mediator",
        "Scorpio" => "the Alchemist",
        "Sagittarius" => "the Seeker",
        "Capricorn" => "the Elder",
        "Aquarius" => "the Rebel",
        "Pisces" => "the Mystic",
        other => {
            return Err(SkillError::new(
                "unexpected_provider_data",
                format!("zodiac returned the unknown sign {other:?}"),
            ))
        }
    })
}

/// Jung's functions by element: fire-intuition, earth-sensation, air-thinking,
/// water-feeling; the inferior function is the opposite one.
fn functions(sign: &str) -> (&'static str, &'static str) {
    match sign {
        "Aries" | "Leo" | "Sagittarius" => ("intuition", "sensation"),
        "Taurus" | "Virgo" | "Capricorn" => ("sensation", "intuition"),
        "Gemini" | "Libra" | "Aquarius" => ("thinking", "feeling"),
        _ => ("feeling", "thinking"),
    }
}

/// Give a Jungian archetype reading of the user's chart (Sun as ego, Moon as anima, the
/// dominant and inferior functions). Uses zodiac's free chart snapshot.
#[skill(
    id = "jungastro.archetype_reading",
    domain = "jungastro",
    category = "analysis"
)]
pub async fn archetype_reading(session: Inject<PackSession>) -> Result<JungianReading, SkillError> {
    let snapshot: ChartSnapshot = session
        .call::<Jungastro, GetChartSnapshot>(&GetChartSnapshotInput {
            include_aspects: true,
        })
        .await?;
    let (dominant, inferior) = functions(&snapshot.sun_sign);
    let ego = archetype(&snapshot.sun_sign)?;
    let anima = archetype(&snapshot.moon_sign)?;
    let tension = snapshot
        .aspects
        .as_deref()
        .and_then(|a| a.first())
        .map(|a| format!(" Sun and Moon form a {}, ", a.kind))
        .unwrap_or_else(|| " ".into());
    Ok(JungianReading {
        ego_archetype: ego.into(),
        anima_archetype: anima.into(),
        dominant_function: dominant.into(),
        inferior_function: inferior.into(),
        summary: format!(
            "Sun in {} casts the ego as {ego}; Moon in {} gives the inner life the face of {anima}.{tension}so integration asks for the {inferior} function kept in the shadow by a {dominant} type.",
            snapshot.sun_sign, snapshot.moon_sign
        ),
    })
}

toolwright_packs::pack! {
    /// Jungian psychological astrology, built on zodiac's exports.
    pub struct Jungastro {
        id: "jungastro",
        name: "Jungian astrology",
        version: "3.0.0",
        exports: {
            api_version: "1.0.0",
            tools: [ArchetypeReading],
        },
        imports: [
            { from: Zodiac, tools: [CalculateZodiac, GetChartSnapshot], min_version: "1.0" },
        ],
    }
}

/// Builds the subscribe card the host shows after `subscription_required`.
pub fn subscribe_card(details: Option<&serde_json::Value>) -> serde_json::Value {
    json!({
        "type": "card",
        "card_type": "subscribe",
        "data": { "skill_id": details.and_then(|d| d.get("skill_id")).cloned().unwrap_or_default() },
    })
}
