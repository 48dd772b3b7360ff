//! Inline SVG charts, generated as text: horizontal grouped bars of shares with
//! confidence whiskers, stacked bars of counts, and a small bar for table cells.
//!
//! Horizontal bars keep long labels (repository names, classes) readable at any length and
//! any number of runs. Every text that comes from data is escaped with [`escape`]; colours
//! come from this crate's own palettes.

use std::fmt::Write as _;

/// Escapes text for HTML and SVG (element content and attribute values).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A share with its interval, for one bar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bar {
    pub value: f64,
    pub low: f64,
    pub high: f64,
    pub tasks: i64,
}

/// One series of bars (a run): its name and colour.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub colour: &'static str,
}

/// The colours of runs (Okabe and Ito's palette, told apart with every common colour
/// vision deficiency).
pub const RUN_COLOURS: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#8C6D1F", "#333333",
];

/// The colour of the `i`-th run.
pub fn run_colour(i: usize) -> &'static str {
    RUN_COLOURS[i % RUN_COLOURS.len()]
}

/// A share as a percentage with one decimal, `—` when undefined.
pub fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{:.1}%", x * 100.0)
    } else {
        "—".to_string()
    }
}

/// Shortens a label to `max` characters with an ellipsis.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

pub(crate) const WIDTH: f64 = 900.0;
const LABEL: f64 = 210.0;
const RIGHT: f64 = 130.0;
const PLOT: f64 = WIDTH - LABEL - RIGHT;
const BAR: f64 = 16.0;
const BAR_GAP: f64 = 4.0;
const GROUP_PAD: f64 = 10.0;
const TOP: f64 = 6.0;
const AXIS: f64 = 26.0;
pub(crate) const FONT: &str =
    "font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif\"";

fn x_of(share: f64) -> f64 {
    LABEL + PLOT * share.clamp(0.0, 1.0)
}

/// A horizontal grouped bar chart of shares in `[0, 1]`: one block per group (label on the
/// left), one bar per series in it, each with its 95% interval as a whisker and its value
/// and task count on the right. `values[g][s]` is series `s` in group `g`; `None` writes
/// `missing` (e.g. "no tasks") in its place. `title` names the chart for screen readers.
pub fn bar_chart(
    title: &str,
    groups: &[String],
    series: &[Series],
    values: &[Vec<Option<Bar>>],
    missing: &str,
) -> String {
    let per_group = series.len().max(1) as f64;
    let group_h = per_group * BAR + (per_group - 1.0) * BAR_GAP + 2.0 * GROUP_PAD;
    let plot_h = group_h * groups.len() as f64;
    let height = TOP + plot_h + AXIS;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" \
         width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"{}\" {FONT} font-size=\"12\">",
        escape(title)
    );
    let _ = write!(s, "<title>{}</title>", escape(title));
    // Zebra bands behind the groups.
    for g in (0..groups.len()).filter(|g| g % 2 == 1) {
        let y = TOP + group_h * g as f64;
        let _ = write!(
            s,
            "<rect x=\"0\" y=\"{y}\" width=\"{WIDTH}\" height=\"{group_h}\" fill=\"#f5f7fa\"/>"
        );
    }
    // Grid and axis.
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let x = x_of(tick);
        let colour = if tick == 0.0 { "#9aa4b2" } else { "#e1e5eb" };
        let _ = write!(
            s,
            "<line x1=\"{x}\" y1=\"{TOP}\" x2=\"{x}\" y2=\"{}\" stroke=\"{colour}\" stroke-width=\"1\"/>",
            TOP + plot_h
        );
        let _ = write!(
            s,
            "<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" fill=\"#5b6472\">{:.0}%</text>",
            TOP + plot_h + 17.0,
            tick * 100.0
        );
    }
    for (g, label) in groups.iter().enumerate() {
        let top = TOP + group_h * g as f64;
        let _ = write!(
            s,
            "<text class=\"group\" x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\" \
             fill=\"#1f2937\" font-weight=\"600\"><title>{}</title>{}</text>",
            LABEL - 10.0,
            top + group_h / 2.0,
            escape(label),
            escape(&truncate(label, 30))
        );
        for (i, ser) in series.iter().enumerate() {
            let y = top + GROUP_PAD + i as f64 * (BAR + BAR_GAP);
            let mid = y + BAR / 2.0;
            match values.get(g).and_then(|v| v.get(i)).copied().flatten() {
                Some(b) if b.value.is_finite() => {
                    let tip = format!(
                        "{}: {} (95% CI {}–{}), {} task{}",
                        ser.name,
                        pct(b.value),
                        pct(b.low),
                        pct(b.high),
                        b.tasks,
                        if b.tasks == 1 { "" } else { "s" }
                    );
                    // A sliver for 0%, so the run's colour still shows.
                    let w = (x_of(b.value) - LABEL).max(2.0);
                    let _ = write!(
                        s,
                        "<g class=\"bar\"><title>{}</title><rect x=\"{LABEL}\" y=\"{y}\" width=\"{w:.2}\" \
                         height=\"{BAR}\" rx=\"2\" fill=\"{}\"/>",
                        escape(&tip),
                        ser.colour
                    );
                    let (x1, x2) = (x_of(b.low), x_of(b.high));
                    if x2 - x1 > 0.5 {
                        let (c1, c2) = (mid - BAR * 0.3, mid + BAR * 0.3);
                        let _ = write!(
                            s,
                            "<path class=\"whisker\" d=\"M{x1:.2} {mid}H{x2:.2}M{x1:.2} {c1}V{c2}M{x2:.2} {c1}V{c2}\" \
                             stroke=\"#1f2937\" stroke-width=\"1.5\" fill=\"none\"/>"
                        );
                    }
                    let _ = write!(
                        s,
                        "<text x=\"{:.2}\" y=\"{mid}\" dominant-baseline=\"middle\" fill=\"#1f2937\">\
                         <tspan font-weight=\"600\">{}</tspan><tspan fill=\"#6b7280\"> n={}</tspan></text></g>",
                        x_of(b.value.max(b.high)) + 6.0,
                        pct(b.value),
                        b.tasks
                    );
                }
                _ => {
                    let _ = write!(
                        s,
                        "<text x=\"{}\" y=\"{mid}\" dominant-baseline=\"middle\" fill=\"#9aa4b2\" \
                         font-style=\"italic\">{}: {}</text>",
                        LABEL + 6.0,
                        escape(&ser.name),
                        escape(missing)
                    );
                }
            }
        }
    }
    s.push_str("</svg>");
    s
}

/// A horizontal stacked bar per row: the shares of each category in the row's counts,
/// with the count inside a segment wide enough to hold it and the total on the right.
/// `counts[r][c]` is category `c` of row `r`.
pub fn stacked_chart(
    title: &str,
    rows: &[String],
    categories: &[(String, &'static str)],
    counts: &[Vec<usize>],
) -> String {
    let row_h = 30.0;
    let bar_h = 20.0;
    let plot_h = row_h * rows.len() as f64;
    let height = TOP + plot_h + AXIS;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" \
         width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"{}\" {FONT} font-size=\"12\">",
        escape(title)
    );
    let _ = write!(s, "<title>{}</title>", escape(title));
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let x = x_of(tick);
        let _ = write!(
            s,
            "<line x1=\"{x}\" y1=\"{TOP}\" x2=\"{x}\" y2=\"{}\" stroke=\"#e1e5eb\" stroke-width=\"1\"/>\
             <text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" fill=\"#5b6472\">{:.0}%</text>",
            TOP + plot_h,
            TOP + plot_h + 17.0,
            tick * 100.0
        );
    }
    for (r, label) in rows.iter().enumerate() {
        let y = TOP + row_h * r as f64 + (row_h - bar_h) / 2.0;
        let mid = y + bar_h / 2.0;
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{mid}\" text-anchor=\"end\" dominant-baseline=\"middle\" fill=\"#1f2937\" \
             font-weight=\"600\"><title>{}</title>{}</text>",
            LABEL - 10.0,
            escape(label),
            escape(&truncate(label, 30))
        );
        let row = counts.get(r).map_or(&[][..], Vec::as_slice);
        let total: usize = row.iter().sum();
        if total == 0 {
            let _ = write!(
                s,
                "<text x=\"{}\" y=\"{mid}\" dominant-baseline=\"middle\" fill=\"#9aa4b2\" \
                 font-style=\"italic\">none</text>",
                LABEL + 6.0
            );
            continue;
        }
        let mut x = LABEL;
        for ((name, colour), &count) in categories.iter().zip(row) {
            if count == 0 {
                continue;
            }
            let w = PLOT * count as f64 / total as f64;
            let _ = write!(
                s,
                "<g class=\"segment\"><title>{}: {} of {} ({})</title><rect x=\"{x:.2}\" y=\"{y}\" \
                 width=\"{w:.2}\" height=\"{bar_h}\" fill=\"{colour}\" stroke=\"#ffffff\" stroke-width=\"1\"/>",
                escape(name),
                count,
                total,
                pct(count as f64 / total as f64)
            );
            let text = count.to_string();
            if w >= 8.0 * text.len() as f64 + 6.0 {
                let _ = write!(
                    s,
                    "<text x=\"{:.2}\" y=\"{mid}\" text-anchor=\"middle\" dominant-baseline=\"middle\" \
                     fill=\"#ffffff\" font-weight=\"600\">{text}</text>",
                    x + w / 2.0
                );
            }
            s.push_str("</g>");
            x += w;
        }
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{mid}\" dominant-baseline=\"middle\" fill=\"#6b7280\">{total}</text>",
            x_of(1.0) + 6.0
        );
    }
    s.push_str("</svg>");
    s
}

/// A small bar with its whisker for a table cell.
pub fn mini_bar(bar: Bar, colour: &str) -> String {
    let (w, h) = (120.0, 12.0);
    let x = |v: f64| 1.0 + (w - 2.0) * v.clamp(0.0, 1.0);
    format!(
        "<svg class=\"mini\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" \
         height=\"{h}\" aria-hidden=\"true\"><rect x=\"1\" y=\"2\" width=\"{}\" height=\"8\" fill=\"#eef1f5\"/>\
         <rect x=\"1\" y=\"2\" width=\"{:.2}\" height=\"8\" rx=\"1\" fill=\"{colour}\"/>\
         <path d=\"M{:.2} 6H{:.2}\" stroke=\"#1f2937\" stroke-width=\"1.2\"/></svg>",
        w - 2.0,
        x(bar.value) - 1.0,
        x(bar.low),
        x(bar.high)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
        assert_eq!(escape("plain é"), "plain é");
    }

    #[test]
    fn formats() {
        assert_eq!(pct(0.5), "50.0%");
        assert_eq!(pct(1.0 / 3.0), "33.3%");
        assert_eq!(pct(f64::NAN), "—");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }

    fn series() -> Vec<Series> {
        vec![
            Series {
                name: "oracle".into(),
                colour: run_colour(0),
            },
            Series {
                name: "n<u>ll".into(),
                colour: run_colour(1),
            },
        ]
    }

    #[test]
    fn bar_chart_draws_bars_whiskers_and_labels() {
        let bar = |v: f64, lo: f64, hi: f64| {
            Some(Bar {
                value: v,
                low: lo,
                high: hi,
                tasks: 7,
            })
        };
        let svg = bar_chart(
            "pass@1 by family",
            &["function".into(), "<evil>".into()],
            &series(),
            &[
                vec![bar(0.5, 0.3, 0.7), bar(0.0, 0.0, 0.0)],
                vec![bar(1.0, 1.0, 1.0), None],
            ],
            "no tasks",
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<g class=\"bar\">").count(), 3);
        // One whisker: the others have no width.
        assert_eq!(svg.matches("class=\"whisker\"").count(), 1);
        // The 50% bar is half the plot wide, and its whisker spans 30% to 70%.
        assert!(
            svg.contains(&format!("width=\"{:.2}\"", PLOT / 2.0)),
            "{svg}"
        );
        assert!(svg.contains(&format!("M{:.2} ", LABEL + PLOT * 0.3)));
        assert!(svg.contains(&format!("H{:.2}", LABEL + PLOT * 0.7)));
        assert!(svg.contains("50.0%") && svg.contains("n=7"));
        assert!(svg.contains("n&lt;u&gt;ll: no tasks"));
        assert!(svg.contains("&lt;evil&gt;") && !svg.contains("<evil>"));
        assert!(svg.contains("fill=\"#0072B2\"") && svg.contains("fill=\"#E69F00\""));
        // Height grows with groups.
        let one = bar_chart("t", &["a".into()], &series(), &[vec![None, None]], "none");
        let height = |s: &str| {
            let at = s.find("height=\"").unwrap() + 8;
            s[at..s[at..].find('"').unwrap() + at]
                .parse::<f64>()
                .unwrap()
        };
        assert!(height(&svg) > height(&one));
    }

    #[test]
    fn stacked_chart_segments_follow_counts() {
        let svg = stacked_chart(
            "statuses",
            &["oracle".into(), "null".into(), "empty".into()],
            &[("pass".into(), "#009E73"), ("fail".into(), "#D55E00")],
            &[vec![3, 1], vec![0, 4], vec![0, 0]],
        );
        assert_eq!(svg.matches("<g class=\"segment\">").count(), 3);
        assert!(svg.contains(&format!("width=\"{:.2}\"", PLOT * 0.75)));
        assert!(svg.contains(&format!("width=\"{PLOT:.2}\"")));
        assert!(svg.contains("pass: 3 of 4 (75.0%)"));
        assert!(svg.contains(">none</text>"));
    }

    #[test]
    fn mini_bar_scales() {
        let svg = mini_bar(
            Bar {
                value: 0.5,
                low: 0.25,
                high: 0.75,
                tasks: 4,
            },
            "#000",
        );
        assert!(svg.contains("width=\"59.00\""), "{svg}");
        assert!(svg.contains("M30.50 6H89.50"));
    }
}
