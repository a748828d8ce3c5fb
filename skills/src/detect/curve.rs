//! Precision–recall curves per kind: what a reader gets at every threshold, not only at the
//! one the model ships with. Each scored unit (a sentence for the classifier, a (clause,
//! kind) finding for the review) has a score, says whether it sits on a labelled excerpt,
//! and names the excerpts it covers. Sweeping the threshold from the top: precision is the
//! share of counted units on an excerpt, recall the share of excerpts covered. The area is
//! the average precision (the precision at each threshold, weighed by the recall it adds);
//! the precision at 80% recall is the best precision among thresholds that reach it (the
//! figure the CUAD paper reports), `None` where 80% is never reached.

use std::collections::HashSet;

use serde::Serialize;

/// One scored unit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scored {
    /// Higher is surer; `f32::INFINITY` for a unit counted at every threshold.
    pub(crate) score: f32,
    /// It sits on an excerpt of the kind.
    pub(crate) located: bool,
    /// The excerpts it covers (keys unique across the pooled contracts).
    pub(crate) covers: Vec<u64>,
}

/// A key for excerpt `excerpt` of contract `contract`, unique in a pooled corpus.
pub(crate) fn excerpt_key(contract: usize, excerpt: usize) -> u64 {
    ((contract as u64) << 32) | excerpt as u64
}

/// One point of a curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Units scored at or above it count (`null` in JSON: counted at every threshold).
    pub threshold: f32,
    /// Counted units on an excerpt, share.
    pub precision: f64,
    /// Excerpts covered, share.
    pub recall: f64,
}

/// The precision–recall curve of one kind.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KindCurve {
    /// Category name (CUAD's).
    pub category: String,
    /// One of the 13 core categories.
    pub core: bool,
    /// Labelled excerpts.
    pub excerpts: usize,
    /// Average precision over the curve.
    pub area: Option<f64>,
    /// Best precision at recall 0.8 or more.
    pub precision_at_80_recall: Option<f64>,
    /// Recall at the lowest threshold.
    pub max_recall: Option<f64>,
    /// The curve, one point per threshold where it changes (at most 40, evenly spread).
    pub points: Vec<CurvePoint>,
}

/// Points kept in a report.
const SHOWN: usize = 40;

/// The curve of `units` against `excerpts` labelled excerpts.
pub(crate) fn curve(
    category: &str,
    core: bool,
    mut units: Vec<Scored>,
    excerpts: usize,
) -> KindCurve {
    units.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut covered: HashSet<u64> = HashSet::new();
    let (mut counted, mut located) = (0usize, 0usize);
    let mut points: Vec<CurvePoint> = Vec::new();
    let mut i = 0;
    while i < units.len() {
        let score = units[i].score;
        // Every unit of one score enters together.
        while i < units.len() && units[i].score == score {
            counted += 1;
            located += usize::from(units[i].located);
            covered.extend(units[i].covers.iter().copied());
            i += 1;
        }
        points.push(CurvePoint {
            threshold: score,
            precision: located as f64 / counted as f64,
            recall: if excerpts > 0 {
                covered.len() as f64 / excerpts as f64
            } else {
                0.0
            },
        });
    }
    let (area, at_80, max_recall) = if excerpts == 0 || points.is_empty() {
        (None, None, (excerpts > 0).then_some(0.0))
    } else {
        let mut area = 0.0;
        let mut last = 0.0;
        for p in &points {
            area += (p.recall - last) * p.precision;
            last = p.recall;
        }
        let at_80 = points
            .iter()
            .filter(|p| p.recall >= 0.8)
            .map(|p| p.precision)
            .max_by(f64::total_cmp);
        (Some(area), at_80, points.last().map(|p| p.recall))
    };
    KindCurve {
        category: category.to_string(),
        core,
        excerpts,
        area,
        precision_at_80_recall: at_80,
        max_recall,
        points: thin(points),
    }
}

/// At most [`SHOWN`] points, evenly spread, the first and last kept.
fn thin(points: Vec<CurvePoint>) -> Vec<CurvePoint> {
    if points.len() <= SHOWN {
        return points;
    }
    let last = points.len() - 1;
    (0..SHOWN).map(|k| points[k * last / (SHOWN - 1)]).collect()
}

/// The curves as a table: per kind its area, precision at 80% recall and highest recall,
/// for each source side by side (`sources` names the columns' groups).
pub(crate) fn render(sources: &[(&str, &[KindCurve])]) -> String {
    use std::fmt::Write as _;
    let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
    let mut out = String::new();
    let mut header = format!("{:<36} {:>5}", "category", "spans");
    for (name, _) in sources {
        let _ = write!(
            header,
            " | {name:<6} {:>5} {:>6} {:>6}",
            "area", "p@r80", "r.max"
        );
    }
    let _ = writeln!(out, "{header}");
    let Some((_, first)) = sources.first() else {
        return out;
    };
    let mut rows: Vec<usize> = (0..first.len()).collect();
    rows.sort_by_key(|&i| (!first[i].core, first[i].category.clone()));
    for i in rows {
        let c = &first[i];
        let mut line = format!(
            "{:<36} {:>5}",
            format!("{}{}", c.category, if c.core { " *" } else { "" }),
            c.excerpts
        );
        for (_, curves) in sources {
            let k = curves.iter().find(|k| k.category == c.category);
            let _ = write!(
                line,
                " | {:<6} {:>5} {:>6} {:>6}",
                "",
                f(k.and_then(|k| k.area)),
                f(k.and_then(|k| k.precision_at_80_recall)),
                f(k.and_then(|k| k.max_recall))
            );
        }
        let _ = writeln!(out, "{line}");
    }
    let macro_of = |curves: &[KindCurve], f: fn(&KindCurve) -> Option<f64>| {
        let values: Vec<f64> = curves.iter().filter(|c| c.core).filter_map(f).collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let mut line = format!("{:<36} {:>5}", "macro, core 13 (where defined)", "");
    for (_, curves) in sources {
        let _ = write!(
            line,
            " | {:<6} {:>5} {:>6} {:>6}",
            "",
            f(macro_of(curves, |c| c.area)),
            f(macro_of(curves, |c| c.precision_at_80_recall)),
            f(macro_of(curves, |c| c.max_recall))
        );
    }
    let _ = writeln!(out, "{line}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(score: f32, located: bool, covers: &[u64]) -> Scored {
        Scored {
            score,
            located,
            covers: covers.to_vec(),
        }
    }

    #[test]
    fn a_perfect_ranking_has_area_one() {
        let c = curve(
            "X",
            true,
            vec![
                unit(0.9, true, &[1]),
                unit(0.8, true, &[2]),
                unit(0.1, false, &[]),
            ],
            2,
        );
        assert_eq!(c.area, Some(1.0));
        assert_eq!(c.precision_at_80_recall, Some(1.0));
        assert_eq!(c.max_recall, Some(1.0));
        assert_eq!(c.points.len(), 3);
        assert!((c.points[2].precision - 2.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn a_false_unit_on_top_costs_precision_at_every_recall() {
        let c = curve(
            "X",
            true,
            vec![
                unit(0.9, false, &[]),
                unit(0.8, true, &[1]),
                unit(0.7, true, &[2]),
            ],
            2,
        );
        // Recall 0.5 at precision 1/2, then 1.0 at 2/3.
        assert!((c.area.unwrap() - (0.5 * 0.5 + 0.5 * 2.0 / 3.0)).abs() < 1e-9);
        assert!((c.precision_at_80_recall.unwrap() - 2.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn ties_enter_together_and_an_unreached_recall_is_none() {
        let c = curve(
            "X",
            false,
            vec![unit(0.5, true, &[1]), unit(0.5, false, &[])],
            4,
        );
        assert_eq!(c.points.len(), 1);
        assert_eq!(c.points[0].precision, 0.5);
        assert_eq!(c.max_recall, Some(0.25));
        assert_eq!(c.precision_at_80_recall, None);
        let empty = curve("Y", false, Vec::new(), 0);
        assert_eq!((empty.area, empty.max_recall), (None, None));
    }

    #[test]
    fn an_excerpt_covered_twice_counts_once() {
        let c = curve(
            "X",
            true,
            vec![unit(0.9, true, &[1]), unit(0.8, true, &[1])],
            2,
        );
        assert_eq!(c.max_recall, Some(0.5));
        assert_eq!(c.area, Some(0.5));
    }

    #[test]
    fn long_curves_are_thinned_keeping_both_ends() {
        let units: Vec<Scored> = (0..100)
            .map(|i| unit(1.0 - i as f32 / 100.0, i % 2 == 0, &[i as u64]))
            .collect();
        let c = curve("X", true, units, 100);
        assert_eq!(c.points.len(), SHOWN);
        assert_eq!(c.points[0].threshold, 1.0);
        assert!((c.points[SHOWN - 1].recall - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_table_lists_each_source() {
        let a = vec![curve("Exclusivity", true, vec![unit(0.9, true, &[1])], 1)];
        let b = vec![curve("Exclusivity", true, vec![unit(0.9, false, &[])], 1)];
        let text = render(&[("model", &a), ("review", &b)]);
        let row = text
            .lines()
            .find(|l| l.starts_with("Exclusivity *"))
            .expect("a row per kind");
        let cells: Vec<Vec<&str>> = row
            .split('|')
            .map(|part| part.split_whitespace().collect())
            .collect();
        assert_eq!(cells[1], ["1.00", "1.00", "1.00"], "{text}");
        assert_eq!(cells[2], ["0.00", "-", "0.00"], "{text}");
        assert!(text.lines().next().unwrap().contains("| review"), "{text}");
    }
}
