//! Low-precision positional astronomy: the Sun's and the Moon's ecliptic longitudes and the
//! ascendant, enough to name signs of the tropical zodiac.
//!
//! Sun: the Astronomical Almanac's low-precision formula (about 0.01°). Moon: the largest
//! periodic terms of Meeus, *Astronomical Algorithms*, ch. 47 (a few hundredths of a
//! degree). Times are UT; the difference to dynamical time (about a minute) is ignored.

use chrono::{DateTime, Utc};

/// The twelve signs of the tropical zodiac, 30° each from the March equinox.
pub const SIGNS: [&str; 12] = [
    "Aries",
    "Taurus",
    "Gemini",
    "Cancer",
    "Leo",
    "Virgo",
    "Libra",
    "Scorpio",
    "Sagittarius",
    "Capricorn",
    "Aquarius",
    "Pisces",
];

/// Julian day of an instant.
pub fn julian_day(at: DateTime<Utc>) -> f64 {
    at.timestamp_millis() as f64 / 86_400_000.0 + 2_440_587.5
}

fn normalize(degrees: f64) -> f64 {
    degrees.rem_euclid(360.0)
}

fn sin_deg(degrees: f64) -> f64 {
    degrees.to_radians().sin()
}

/// Apparent ecliptic longitude of the Sun, degrees in `[0, 360)`.
pub fn sun_longitude(jd: f64) -> f64 {
    let n = jd - 2_451_545.0;
    let mean_longitude = 280.460 + 0.985_647_4 * n;
    let mean_anomaly = 357.528 + 0.985_600_3 * n;
    normalize(mean_longitude + 1.915 * sin_deg(mean_anomaly) + 0.020 * sin_deg(2.0 * mean_anomaly))
}

/// Geocentric ecliptic longitude of the Moon, degrees in `[0, 360)`.
pub fn moon_longitude(jd: f64) -> f64 {
    let t = (jd - 2_451_545.0) / 36_525.0;
    let mean_longitude = 218.316_447_7 + 481_267.881_234_21 * t;
    let d = 297.850_192_1 + 445_267.111_403_4 * t; // mean elongation
    let m = 357.529_109_2 + 35_999.050_290_9 * t; // Sun's mean anomaly
    let mp = 134.963_396_4 + 477_198.867_505_5 * t; // Moon's mean anomaly
    let f = 93.272_095_0 + 483_202.017_523_3 * t; // argument of latitude
    let e = 1.0 - 0.002_516 * t - 0.000_007_4 * t * t;
    // (coefficient in degrees, D, M, M', F) — Meeus table 47.A, largest terms.
    const TERMS: [(f64, f64, f64, f64, f64); 24] = [
        (6.288_774, 0.0, 0.0, 1.0, 0.0),
        (1.274_027, 2.0, 0.0, -1.0, 0.0),
        (0.658_314, 2.0, 0.0, 0.0, 0.0),
        (0.213_618, 0.0, 0.0, 2.0, 0.0),
        (-0.185_116, 0.0, 1.0, 0.0, 0.0),
        (-0.114_332, 0.0, 0.0, 0.0, 2.0),
        (0.058_793, 2.0, 0.0, -2.0, 0.0),
        (0.057_066, 2.0, -1.0, -1.0, 0.0),
        (0.053_322, 2.0, 0.0, 1.0, 0.0),
        (0.045_758, 2.0, -1.0, 0.0, 0.0),
        (-0.040_923, 0.0, 1.0, -1.0, 0.0),
        (-0.034_720, 1.0, 0.0, 0.0, 0.0),
        (-0.030_383, 0.0, 1.0, 1.0, 0.0),
        (0.015_327, 2.0, 0.0, 0.0, -2.0),
        (-0.012_528, 0.0, 0.0, 1.0, 2.0),
        (0.010_980, 0.0, 0.0, 1.0, -2.0),
        (0.010_675, 4.0, 0.0, -1.0, 0.0),
        (0.010_034, 0.0, 0.0, 3.0, 0.0),
        (0.008_548, 4.0, 0.0, -2.0, 0.0),
        (-0.007_888, 2.0, 1.0, -1.0, 0.0),
        (-0.006_766, 2.0, 1.0, 0.0, 0.0),
        (-0.005_163, 1.0, 0.0, -1.0, 0.0),
        (0.004_987, 1.0, 1.0, 0.0, 0.0),
        (0.004_036, 2.0, -1.0, 1.0, 0.0),
    ];
    let sum: f64 = TERMS
        .iter()
        .map(|&(coef, cd, cm, cmp, cf)| {
            let eccentricity = match cm.abs() as u32 {
                1 => e,
                2 => e * e,
                _ => 1.0,
            };
            coef * eccentricity * sin_deg(cd * d + cm * m + cmp * mp + cf * f)
        })
        .sum();
    normalize(mean_longitude + sum)
}

/// Ecliptic longitude of the ascendant for a place (`latitude` north, `longitude` east, in
/// degrees), degrees in `[0, 360)`.
pub fn ascendant(jd: f64, latitude: f64, longitude: f64) -> f64 {
    let t = (jd - 2_451_545.0) / 36_525.0;
    let gmst = 280.460_618_37 + 360.985_647_366_29 * (jd - 2_451_545.0) + 0.000_387_933 * t * t;
    let ramc = normalize(gmst + longitude).to_radians();
    let obliquity = (23.439_291 - 0.013_004_2 * t).to_radians();
    let lat = latitude.to_radians();
    let y = ramc.cos();
    let x = -(ramc.sin() * obliquity.cos() + lat.tan() * obliquity.sin());
    normalize(y.atan2(x).to_degrees())
}

/// The sign holding an ecliptic longitude.
pub fn sign_of(longitude: f64) -> &'static str {
    SIGNS[(normalize(longitude) / 30.0) as usize % 12]
}

/// Degrees within the sign (`0..30`).
pub fn degree_in_sign(longitude: f64) -> f64 {
    normalize(longitude) % 30.0
}

/// The major aspect two longitudes form (orb 8°), with its exact angle.
pub fn aspect_between(a: f64, b: f64) -> Option<(&'static str, f64)> {
    let mut separation = (normalize(a) - normalize(b)).abs();
    if separation > 180.0 {
        separation = 360.0 - separation;
    }
    [
        ("conjunction", 0.0),
        ("sextile", 60.0),
        ("square", 90.0),
        ("trine", 120.0),
        ("opposition", 180.0),
    ]
    .into_iter()
    .find(|(_, angle)| (separation - angle).abs() <= 8.0)
    .map(|(name, angle)| (name, (separation - angle).abs()))
}
