//! The `zodiac` provider pack: computes natal charts (subscription, 50 per day) and offers a
//! free read-only accessor, `get_chart_snapshot`, so other packs never read its storage.

use chrono::{NaiveDate, NaiveTime, TimeZone, Utc};
use serde_json::json;
use toolwright::prelude::*;
use toolwright::Inject;
use toolwright_packs::PackSession;

use crate::astro;

/// Where zodiac keeps the user's latest chart (its own namespace; internal format).
pub const CHART_PATH: &str = "skills.zodiac.chart";

/// A body's place on the ecliptic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanetPosition {
    /// `Sun` or `Moon`.
    pub name: String,
    /// Ecliptic longitude in degrees, `0..360` from 0° Aries.
    pub longitude: f64,
    /// The sign holding it.
    pub sign: String,
    /// Degrees within the sign.
    pub degree: f64,
}

/// A natal chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Chart {
    /// The instant of birth, UTC (RFC 3339).
    pub utc: String,
    /// The birth place as given.
    pub birth_place: Option<String>,
    /// Sun and Moon.
    pub planets: Vec<PlanetPosition>,
    /// Sign on the eastern horizon; needs latitude and longitude.
    pub rising_sign: Option<String>,
}

/// What `calculate_zodiac` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ZodiacReading {
    /// The whole chart.
    pub chart: Chart,
    /// Sign of the Sun.
    pub sun_sign: String,
    /// Sign of the Moon.
    pub moon_sign: String,
}

/// How zodiac stores charts. The format changed once; the accessor reads both, so packs
/// that use it never notice.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "format")]
pub enum StoredChart {
    /// First format: signs only.
    #[serde(rename = "1")]
    V1 {
        /// Sun sign.
        sun: String,
        /// Moon sign.
        moon: String,
    },
    /// Current format: longitudes, signs derived on read.
    #[serde(rename = "2")]
    V2 {
        /// Sun longitude.
        sun_longitude: f64,
        /// Moon longitude.
        moon_longitude: f64,
        /// Ascendant longitude, when known.
        ascendant: Option<f64>,
    },
}

/// A sun-moon aspect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Aspect {
    /// The two bodies.
    pub between: [String; 2],
    /// `conjunction`, `sextile`, `square`, `trine` or `opposition`.
    pub kind: String,
    /// Distance from exact, in degrees.
    pub orb: f64,
}

/// What `get_chart_snapshot` returns: the contract other packs rely on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChartSnapshot {
    /// Sign of the Sun.
    pub sun_sign: String,
    /// Sign of the Moon.
    pub moon_sign: String,
    /// Rising sign, when known.
    pub rising_sign: Option<String>,
    /// Positions, when the stored chart has them.
    pub planets: Vec<PlanetPosition>,
    /// Sun-moon aspects, when asked for and positions are known.
    pub aspects: Option<Vec<Aspect>>,
}

fn position(name: &str, longitude: f64) -> PlanetPosition {
    PlanetPosition {
        name: name.into(),
        longitude: (longitude * 1000.0).round() / 1000.0,
        sign: astro::sign_of(longitude).into(),
        degree: (astro::degree_in_sign(longitude) * 100.0).round() / 100.0,
    }
}

/// Calculate a natal chart: Sun and Moon signs from the birth date and time, and the rising
/// sign when the place's coordinates are given.
#[skill(
    id = "zodiac.calculate_zodiac",
    marker = "CalculateZodiac",
    domain = "zodiac",
    category = "analysis"
)]
pub async fn calculate_zodiac(
    /// Birth date, `YYYY-MM-DD`.
    birth_date: NaiveDate,
    /// Birth time `HH:MM` (24 h), local time at the birth place.
    #[arg(default = "12:00".to_string())]
    birth_time: String,
    /// Birth place, as the user names it.
    birth_place: Option<String>,
    /// Offset of the local time from UTC in minutes (480 for Beijing).
    #[arg(default)]
    utc_offset_minutes: i32,
    /// Latitude of the birth place in degrees north (for the rising sign).
    latitude: Option<f64>,
    /// Longitude of the birth place in degrees east (for the rising sign).
    longitude: Option<f64>,
    session: Inject<PackSession>,
) -> Result<ZodiacReading, SkillError> {
    let time = NaiveTime::parse_from_str(&birth_time, "%H:%M").map_err(|_| {
        SkillError::invalid_arguments(format!(
            "birth_time: expected HH:MM in 24-hour form such as \"08:30\", got {birth_time:?}"
        ))
    })?;
    if !(-14 * 60..=14 * 60).contains(&utc_offset_minutes) {
        return Err(SkillError::invalid_arguments(format!(
            "utc_offset_minutes: expected -840..=840, got {utc_offset_minutes}"
        )));
    }
    if let Some(lat) = latitude {
        if !(-66.0..=66.0).contains(&lat) {
            return Err(SkillError::invalid_arguments(format!(
                "latitude: the rising sign is defined between -66 and 66 degrees, got {lat}"
            )));
        }
    }
    let local = birth_date.and_time(time);
    let utc =
        Utc.from_utc_datetime(&(local - chrono::Duration::minutes(utc_offset_minutes.into())));
    let jd = astro::julian_day(utc);
    let sun = astro::sun_longitude(jd);
    let moon = astro::moon_longitude(jd);
    let ascendant = match (latitude, longitude) {
        (Some(lat), Some(lon)) => Some(astro::ascendant(jd, lat, lon)),
        _ => None,
    };
    let stored = StoredChart::V2 {
        sun_longitude: sun,
        moon_longitude: moon,
        ascendant,
    };
    session
        .save(CHART_PATH, &serde_json::to_value(&stored)?)
        .await?;
    Ok(ZodiacReading {
        sun_sign: astro::sign_of(sun).into(),
        moon_sign: astro::sign_of(moon).into(),
        chart: Chart {
            utc: utc.to_rfc3339(),
            birth_place,
            planets: vec![position("Sun", sun), position("Moon", moon)],
            rising_sign: ascendant.map(|a| astro::sign_of(a).into()),
        },
    })
}

/// Read the user's latest chart: signs, positions and optionally the sun-moon aspect.
/// Read-only and free; other packs use it instead of zodiac's storage.
#[skill(
    id = "zodiac.get_chart_snapshot",
    marker = "GetChartSnapshot",
    domain = "zodiac",
    category = "query"
)]
pub async fn get_chart_snapshot(
    /// Include the sun-moon aspect.
    #[arg(default)]
    include_aspects: bool,
    session: Inject<PackSession>,
) -> Result<ChartSnapshot, SkillError> {
    let Some(stored) = session.read(CHART_PATH).await? else {
        return Err(SkillError::not_found(
            "this user has no chart yet; calculate one with zodiac_calculate_zodiac first",
        ));
    };
    let stored: StoredChart = serde_json::from_value(stored.clone()).map_err(|e| {
        SkillError::new("corrupt_state", "the stored chart cannot be read")
            .with_details(json!({ "path": CHART_PATH, "error": e.to_string(), "value": stored }))
    })?;
    Ok(match stored {
        StoredChart::V1 { sun, moon } => ChartSnapshot {
            sun_sign: sun,
            moon_sign: moon,
            rising_sign: None,
            planets: Vec::new(),
            aspects: include_aspects.then(Vec::new),
        },
        StoredChart::V2 {
            sun_longitude,
            moon_longitude,
            ascendant,
        } => ChartSnapshot {
            sun_sign: astro::sign_of(sun_longitude).into(),
            moon_sign: astro::sign_of(moon_longitude).into(),
            rising_sign: ascendant.map(|a| astro::sign_of(a).into()),
            planets: vec![
                position("Sun", sun_longitude),
                position("Moon", moon_longitude),
            ],
            aspects: include_aspects.then(|| {
                astro::aspect_between(sun_longitude, moon_longitude)
                    .map(|(kind, orb)| Aspect {
                        between: ["Sun".into(), "Moon".into()],
                        kind: kind.into(),
                        orb: (orb * 100.0).round() / 100.0,
                    })
                    .into_iter()
                    .collect()
            }),
        },
    })
}

toolwright_packs::pack! {
    /// Western astrology: natal charts for other packs, on subscription.
    pub struct Zodiac {
        id: "zodiac",
        name: "Western astrology",
        version: "3.0.0",
        exports: {
            api_version: "1.0.0",
            tools: [CalculateZodiac, GetChartSnapshot],
            access: {
                requires_subscription: true,
                free_tools: [GetChartSnapshot],
                rate_limits: { CalculateZodiac: "50/day", GetChartSnapshot: "unlimited" },
            },
        },
    }
}
