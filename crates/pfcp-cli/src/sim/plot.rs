//! The plot of `pfcp sim` (`report.svg`, plotters): goodput and the priority class's success
//! against offered load per strategy, the real-time runs as triangles among them; the step
//! over time with every strategy, the offered rate, the capacity and the phases; the
//! published overload metric. One legend above the panels: a strategy has the same colour
//! in each, and in every report. `figure` decides what is shown; this file draws it.

use std::path::Path;

use plotters::coord::combinators::BindKeyPoints;
use plotters::coord::ranged1d::Ranged;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::report::Report;

pub(super) mod figure;

use figure::{tick_label, Curve, Figure, Key, StepPanels, SweepPanels, GREY};

/// The figure's width, pixels.
const WIDTH: u32 = 1200;
/// The heights of the legend, the row against offered load, the step's rates and its metric.
const LEGEND_HEIGHT: u32 = 40;
const SWEEP_HEIGHT: u32 = 450;
const STEP_HEIGHT: u32 = 450;
const METRIC_HEIGHT: u32 = 230;

/// A hollow triangle around a point (pixel offsets), the real-time runs' marker; plotters'
/// own triangle is filled and would hide the line under it.
const TRIANGLE: [(i32, i32); 4] = [(0, -7), (6, 4), (-6, 4), (0, -7)];

/// Draw `report` into the SVG file `path`.
pub(super) fn draw(report: &Report, path: &Path) -> Result<(), String> {
    let fig = Figure::of(report);
    let mut height = LEGEND_HEIGHT + SWEEP_HEIGHT;
    if fig.step.is_some() {
        height += STEP_HEIGHT + METRIC_HEIGHT;
    }
    let root = SVGBackend::new(path, (WIDTH, height)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("plot {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (legend_area, rest) = root.split_vertically(LEGEND_HEIGHT);
    legend(&fig.legend, &legend_area).map_err(|e| err(&e))?;
    let (top, bottom) = rest.split_vertically(SWEEP_HEIGHT);
    match &fig.sweep {
        Some(s) => sweep(s, &top).map_err(|e| err(&e))?,
        None => note(&top, "no load sweep in this run").map_err(|e| err(&e))?,
    }
    if let Some(st) = &fig.step {
        let (rates, metric) = bottom.split_vertically(STEP_HEIGHT);
        step(st, &rates, &metric).map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type PlotResult = Result<(), Box<dyn std::error::Error>>;
type Chart<'a, 'b, X> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, RangedCoordf64>>;

fn font(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().into()
}

/// A panel that has nothing to show says so.
fn note(area: &Area<'_>, text: &str) -> PlotResult {
    let (w, h) = area.dim_in_pixel();
    area.draw(&Text::new(
        text.to_owned(),
        (w as i32 / 2, h as i32 / 2),
        font(16).pos(Pos::new(HPos::Center, VPos::Center)),
    ))?;
    Ok(())
}

/// The legend: each key's line or triangle and its text, in a row.
fn legend(keys: &[Key], area: &Area<'_>) -> PlotResult {
    let style = font(15).pos(Pos::new(HPos::Left, VPos::Center));
    let y = LEGEND_HEIGHT as i32 / 2 + 4;
    let mut x = 70;
    for k in keys {
        if k.triangle {
            area.draw(
                &(EmptyElement::at((x + 12, y))
                    + PathElement::new(TRIANGLE.to_vec(), k.colour.stroke_width(2))),
            )?;
        } else {
            area.draw(&PathElement::new(
                vec![(x, y), (x + 26, y)],
                k.colour.stroke_width(3),
            ))?;
        }
        area.draw(&Text::new(k.text.clone(), (x + 34, y), style.clone()))?;
        let (w, _) = area.estimate_text_size(&k.text, &style)?;
        x += 34 + w as i32 + 30;
    }
    Ok(())
}

/// `text` on a white box, its bottom-left corner at `at` (`above`) or its top-left corner
/// there: a label stays legible over the lines it crosses.
fn boxed_text<X, Y>(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    text: &str,
    at: (X::ValueType, Y::ValueType),
    above: bool,
    colour: RGBColor,
) -> PlotResult
where
    X: Ranged,
    Y: Ranged,
    X::ValueType: Clone + 'static,
    Y::ValueType: Clone + 'static,
{
    let style = font(13).color(&colour);
    let (w, h) = chart.plotting_area().estimate_text_size(text, &style)?;
    let (w, h) = (w as i32 + 6, h as i32 + 4);
    let top = if above { -h - 1 } else { 1 };
    chart.plotting_area().draw(
        &(EmptyElement::at(at)
            + Rectangle::new([(0, top), (w, top + h)], WHITE.mix(0.85).filled())
            + Text::new(text.to_owned(), (3, top + 2), style)),
    )?;
    Ok(())
}

/// A chart against offered load (logarithmic, ticks at `s.ticks`) with y in `0..y_max`.
fn load_chart<'a, 'b>(
    area: &'a Area<'b>,
    s: &SweepPanels,
    caption: String,
    y_max: f64,
    y_desc: &str,
) -> Result<Chart<'a, 'b, impl Ranged<ValueType = f64>>, Box<dyn std::error::Error>> {
    let x = (s.x_range.0..s.x_range.1)
        .log_scale()
        .with_key_points(s.ticks.clone());
    let mut chart = ChartBuilder::on(area)
        .caption(caption, font(17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(52)
        .build_cartesian_2d(x, 0f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc("offered load (multiple of the capacity)")
        .y_desc(y_desc)
        .x_label_formatter(&|x| tick_label(*x))
        .y_label_formatter(&|y| format!("{y:.1}"))
        .label_style(font(13))
        .axis_desc_style(font(14))
        .light_line_style(WHITE)
        .draw()?;
    Ok(chart)
}

fn sweep(s: &SweepPanels, area: &Area<'_>) -> PlotResult {
    let (left, right) = area.split_horizontally(WIDTH / 2);
    let mut chart = load_chart(
        &left,
        s,
        format!("goodput against offered load ({})", s.lines_from),
        s.goodput_top,
        "goodput / capacity",
    )?;
    let (lo, hi) = s.x_range;
    let xs: Vec<f64> = (0..=80)
        .map(|i| lo * (hi / lo).powf(f64::from(i) / 80.0))
        .collect();
    chart.draw_series(LineSeries::new(
        xs.iter().map(|&x| (x, x.min(1.0))),
        BLACK.stroke_width(1),
    ))?;
    chart.draw_series(std::iter::once(Text::new(
        "ideal: min(offered, capacity)",
        (hi, 1.0),
        font(13).pos(Pos::new(HPos::Right, VPos::Bottom)),
    )))?;
    draw_lines(&mut chart, &s.goodput)?;
    draw_markers(&mut chart, &s.real_goodput)?;
    match &s.priority {
        Some((class, curves)) => {
            let mut chart = load_chart(
                &right,
                s,
                format!("{class} requests that succeeded"),
                1.05,
                &format!("share of {class} requests"),
            )?;
            draw_lines(&mut chart, curves)?;
            draw_markers(&mut chart, &s.real_priority)?;
        }
        None => note(&right, "no emergency or emps class in the mix")?,
    }
    Ok(())
}

/// Each curve as a line with dots.
fn draw_lines<X>(chart: &mut Chart<'_, '_, X>, curves: &[Curve]) -> PlotResult
where
    X: Ranged<ValueType = f64>,
{
    for c in curves {
        chart.draw_series(LineSeries::new(
            c.points.iter().copied(),
            c.colour.stroke_width(2),
        ))?;
        chart.draw_series(
            c.points
                .iter()
                .map(|&p| Circle::new(p, 3, c.colour.filled())),
        )?;
    }
    Ok(())
}

/// Each curve's points as hollow triangles.
fn draw_markers<X>(chart: &mut Chart<'_, '_, X>, curves: &[Curve]) -> PlotResult
where
    X: Ranged<ValueType = f64>,
{
    for c in curves {
        chart.draw_series(c.points.iter().map(|&p| {
            EmptyElement::at(p) + PathElement::new(TRIANGLE.to_vec(), c.colour.stroke_width(2))
        }))?;
    }
    Ok(())
}

fn step(st: &StepPanels, rates: &Area<'_>, metric: &Area<'_>) -> PlotResult {
    let (left, right) = rates.split_horizontally(WIDTH / 2);
    rate_panel(
        st,
        &left,
        "the step: requests reaching the UP functions",
        &st.arriving,
        true,
    )?;
    rate_panel(
        st,
        &right,
        "the step: requests that succeeded",
        &st.succeeded,
        false,
    )?;
    let mut chart = ChartBuilder::on(metric)
        .caption(
            "the step: overload reduction metric published (highest UP function)",
            font(17),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..st.end, 0f64..100f64)?;
    chart
        .configure_mesh()
        .x_desc("seconds")
        .x_label_formatter(&|t| format!("{}", (t * 100.0).round() / 100.0))
        .y_desc("metric, %")
        .y_labels(6)
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(font(13))
        .axis_desc_style(font(14))
        .light_line_style(WHITE)
        .draw()?;
    phase_marks(&mut chart, st, 100.0)?;
    for c in &st.metric {
        chart.draw_series(LineSeries::new(
            c.points.iter().copied(),
            c.colour.stroke_width(2),
        ))?;
    }
    Ok(())
}

/// The phases as dashed vertical lines.
fn phase_marks(chart: &mut Chart<'_, '_, RangedCoordf64>, st: &StepPanels, top: f64) -> PlotResult {
    for m in &st.phases {
        chart.draw_series(DashedLineSeries::new(
            [(m.t, 0.0), (m.t, top)],
            4,
            4,
            BLACK.stroke_width(1),
        ))?;
    }
    Ok(())
}

fn rate_panel(
    st: &StepPanels,
    area: &Area<'_>,
    caption: &str,
    curves: &[Curve],
    with_offered: bool,
) -> PlotResult {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, font(17))
        .margin(12)
        .margin_bottom(30)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..st.end, 0f64..st.top)?;
    chart
        .configure_mesh()
        .x_desc("seconds")
        .x_label_formatter(&|t| format!("{}", (t * 100.0).round() / 100.0))
        .y_desc("requests per second")
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(font(13))
        .axis_desc_style(font(14))
        .light_line_style(WHITE)
        .draw()?;
    phase_marks(&mut chart, st, st.top)?;
    chart.draw_series(DashedLineSeries::new(
        [(0.0, st.capacity), (st.end, st.capacity)],
        8,
        5,
        GREY.stroke_width(2),
    ))?;
    if with_offered {
        chart.draw_series(LineSeries::new(
            st.offered.iter().copied(),
            BLACK.stroke_width(1),
        ))?;
    }
    for c in curves {
        chart.draw_series(LineSeries::new(
            c.points.iter().copied(),
            c.colour.stroke_width(2),
        ))?;
    }
    // The labels over the lines.
    let capacity = format!("capacity {:.0}/s", st.capacity);
    boxed_text(
        &mut chart,
        &capacity,
        (st.end * 0.8, st.capacity),
        true,
        GREY,
    )?;
    for m in &st.phases {
        boxed_text(&mut chart, &m.label, (m.t, st.top), false, BLACK)?;
    }
    if with_offered {
        for l in &st.offered_labels {
            boxed_text(&mut chart, &l.text, l.at, true, BLACK)?;
        }
    }
    // What the axis clips, said under it.
    let clipped: Vec<String> = curves
        .iter()
        .filter_map(|c| Some(format!("{} {:.0}/s", c.strategy, c.off_scale_peak?)))
        .collect();
    if !clipped.is_empty() {
        let (w, h) = area.dim_in_pixel();
        area.draw(&Text::new(
            format!("above the axis, peaks: {}", clipped.join(", ")),
            (w as i32 / 2, h as i32 - 4),
            font(13).pos(Pos::new(HPos::Center, VPos::Bottom)),
        ))?;
    }
    Ok(())
}
