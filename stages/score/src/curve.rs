//! The contamination curve: pass@1 of each run by the quarter in which the tasks' code was
//! first published (its code date), with 95% intervals, as an inline SVG line chart. A
//! model that has seen the older code does better on the quarters before its training
//! cutoff than after it: the curve drops where its memory ends.

use std::fmt::Write as _;

use crate::svg::{escape, pct, Bar, Series, FONT, WIDTH};

const HEIGHT: f64 = 300.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 40.0;

/// A line per series over the `quarters` (left to right), `values[q][s]` series `s` at
/// quarter `q` (`None`: no task of that run there, a gap in its line), each point with its
/// interval as a vertical whisker and a tooltip; `cutoff_at` marks the cutoff's quarter.
pub fn line_chart(
    title: &str,
    quarters: &[String],
    series: &[Series],
    values: &[Vec<Option<Bar>>],
    cutoff_at: Option<usize>,
) -> String {
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let slots = quarters.len().max(1) as f64;
    let x_of = |q: usize| LEFT + plot_w * (q as f64 + 0.5) / slots;
    let y_of = |share: f64| TOP + plot_h * (1.0 - share.clamp(0.0, 1.0));
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" \
         width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\" aria-label=\"{}\" {FONT} font-size=\"12\">\
         <title>{}</title>",
        escape(title),
        escape(title)
    );
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let y = y_of(tick);
        let _ = write!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{}\" stroke-width=\"1\"/>\
             <text x=\"{}\" y=\"{y}\" text-anchor=\"end\" dominant-baseline=\"middle\" fill=\"#5b6472\">{:.0}%</text>",
            WIDTH - RIGHT,
            if tick == 0.0 { "#9aa4b2" } else { "#e1e5eb" },
            LEFT - 6.0,
            tick * 100.0
        );
    }
    if let Some(c) = cutoff_at.filter(|c| *c < quarters.len()) {
        let x = x_of(c) - plot_w / slots / 2.0;
        let _ = write!(
            s,
            "<line class=\"cutoff\" x1=\"{x:.2}\" y1=\"{TOP}\" x2=\"{x:.2}\" y2=\"{}\" stroke=\"#D55E00\" \
             stroke-dasharray=\"5 4\" stroke-width=\"1.5\"/><text x=\"{:.2}\" y=\"{}\" fill=\"#D55E00\">cutoff</text>",
            TOP + plot_h,
            x + 4.0,
            TOP + 12.0
        );
    }
    for (q, label) in quarters.iter().enumerate() {
        let _ = write!(
            s,
            "<text x=\"{:.2}\" y=\"{}\" text-anchor=\"middle\" fill=\"#1f2937\">{}</text>",
            x_of(q),
            TOP + plot_h + 18.0,
            escape(label)
        );
    }
    for (i, ser) in series.iter().enumerate() {
        // The line, broken where the run has no task in a quarter.
        let mut path = String::new();
        let mut pen_down = false;
        for q in 0..quarters.len() {
            match values.get(q).and_then(|v| v.get(i)).copied().flatten() {
                Some(b) if b.value.is_finite() => {
                    let _ = write!(
                        path,
                        "{}{:.2} {:.2}",
                        if pen_down { "L" } else { "M" },
                        x_of(q),
                        y_of(b.value)
                    );
                    pen_down = true;
                }
                _ => pen_down = false,
            }
        }
        if !path.is_empty() {
            let _ = write!(
                s,
                "<path class=\"curve\" d=\"{path}\" stroke=\"{}\" stroke-width=\"2.5\" fill=\"none\"/>",
                ser.colour
            );
        }
        for (q, quarter) in quarters.iter().enumerate() {
            let Some(b) = values.get(q).and_then(|v| v.get(i)).copied().flatten() else {
                continue;
            };
            if !b.value.is_finite() {
                continue;
            }
            let (x, y) = (x_of(q), y_of(b.value));
            let tip = format!(
                "{} in {}: {} (95% CI {}–{}), {} task{}",
                ser.name,
                quarter,
                pct(b.value),
                pct(b.low),
                pct(b.high),
                b.tasks,
                if b.tasks == 1 { "" } else { "s" }
            );
            let _ = write!(
                s,
                "<g class=\"point\"><title>{}</title><path d=\"M{x:.2} {:.2}V{:.2}\" stroke=\"{}\" \
                 stroke-width=\"1.5\"/><circle cx=\"{x:.2}\" cy=\"{y:.2}\" r=\"4\" fill=\"{}\"/></g>",
                escape(&tip),
                y_of(b.low),
                y_of(b.high),
                ser.colour,
                ser.colour
            );
        }
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_run_broken_at_gaps() {
        let bar = |v: f64| {
            Some(Bar {
                value: v,
                low: v - 0.1,
                high: v + 0.1,
                tasks: 4,
            })
        };
        let series = [
            Series {
                name: "a<b".into(),
                colour: "#0072B2",
            },
            Series {
                name: "c".into(),
                colour: "#E69F00",
            },
        ];
        let quarters = ["2025Q4".to_string(), "2026Q1".into(), "2026Q2".into()];
        let values = vec![
            vec![bar(0.9), bar(0.5)],
            vec![None, bar(0.4)],
            vec![bar(0.2), bar(0.3)],
        ];
        let svg = line_chart("curve", &quarters, &series, &values, Some(2));
        assert_eq!(svg.matches("class=\"curve\"").count(), 2);
        // Run `a<b` has a gap: its path starts twice.
        let a = svg.split("class=\"curve\" d=\"").nth(1).unwrap();
        assert_eq!(a.split('"').next().unwrap().matches('M').count(), 2);
        assert_eq!(svg.matches("<circle").count(), 5);
        assert!(svg.contains("a&lt;b in 2025Q4: 90.0%"));
        assert!(svg.contains("class=\"cutoff\""));
    }
}
